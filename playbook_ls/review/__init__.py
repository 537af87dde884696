"""Review a change: what two revisions of a repository do differently in the run, compared
from what each one's files say (``playbook-ls diff``). Nothing from either revision runs: a git
revision is written out of git's object store (no checkout, hooks or filters), then each side
is planned as ``playbook-ls plan`` plans it."""
