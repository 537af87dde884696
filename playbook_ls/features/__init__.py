"""Editor features as pure functions over the workspace model (no LSP types unless converting)."""

# The commands the code lenses call; any client may call them with workspace/executeCommand.
LIST_TASKS = "playbook-ls.listTasks"
SHOW_EFFECTIVE_TAGS = "playbook-ls.showEffectiveTags"
