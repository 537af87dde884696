"""Editor features as pure functions over the workspace model (no LSP types unless converting)."""

# The commands the code lenses call; any client may call them with workspace/executeCommand.
LIST_TASKS = "playbook-ls.listTasks"
# What will run where (playbook-ls plan) for a playbook: {path, inventory?, tags?, skip_tags?};
# the inventory defaults to the ``inventory`` setting, the tags to the selection preview's.
SHOW_PLAN = "playbook-ls.showPlan"
SHOW_EFFECTIVE_TAGS = "playbook-ls.showEffectiveTags"
# What a change does to the run (playbook-ls diff) of a playbook: {path, base?, inventory?}; the
# base defaults to the merge base of HEAD with the remote's default branch, the inventory to the
# ``inventory`` setting.
SHOW_REVIEW = "playbook-ls.showReview"
# Run the tasks a lens names with the bundled engine: check mode (changes nothing), or for real
# after the user confirms. Arguments: {playbook, play?, tags?, skip_tags?, profile?, inventory?}.
CHECK_TASKS = "playbook-ls.checkTasks"
RUN_TASKS = "playbook-ls.runTasks"
# Both run only in a workspace the client says is trusted (this initialization option); why, and
# how to allow it, as the refusal and the lenses' tooltip say it.
TRUST_OPTION = "runRepositoryCode"
TRUST_NEEDED = ("A check runs code from this repository as a run does (its lookups such as pipe, plugins, modules "
                "and inventory scripts), so playbook-ls checks and runs only in a trusted workspace: trust it "
                "(VS Code: Manage Workspace Trust) or start playbook-ls with the initialization option "
                f'"{TRUST_OPTION}": true.')
# The launch profiles the settings define (no arguments): {profiles: [{name, playbook, ...}], error}.
LIST_PROFILES = "playbook-ls.listProfiles"
# Sent instead of window/logMessage for a run's output when the client asked for it with the
# initialization option ``runOutput: "notification"`` (the VS Code extension shows it in its
# own output channel): {text}.
RUN_OUTPUT = "playbook-ls/runOutput"
# The selection preview: {tags?, skip_tags?, profile?} (null clears) greys out the tasks it would
# not run and adds a section to the hover; the server then sends {label, tags, skip_tags,
# profile, notes} (label null: no preview) as SELECTION_CHANGED.
SET_SELECTION = "playbook-ls.setSelection"
SELECTION_CHANGED = "playbook-ls/selection"
