from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make `import var_cases` work in any import mode
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # and `import ansible_tools`
