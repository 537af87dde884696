import sys

from playbook_ls.cli import main

sys.exit(main())
