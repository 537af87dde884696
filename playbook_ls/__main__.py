import sys

from playbook_ls.cli.main import main

sys.exit(main())
