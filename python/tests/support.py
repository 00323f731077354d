"""What the Python tests share: the package of this checkout first on sys.path (so
`import cfile` tests these sources, not an installed copy), this folder on it too (for
arrow_consumer), and where the shared test data is: CF_SHARED_DIR, by default
../../../shared (the repository's sibling `shared`). Import it before cfile."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

SHARED = os.environ.get("CF_SHARED_DIR") or os.path.normpath(os.path.join(HERE, "..", "..", "..",
                                                                          "shared"))
GOLDEN = os.path.join(SHARED, "golden")
LAYOUTS = os.path.join(SHARED, "kudu-fs")
