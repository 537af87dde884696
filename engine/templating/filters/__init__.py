"""Filters and tests beyond Jinja2's: ansible.builtin's core filters, the regex and ternary ones (with the
regex guard that runs a repository's regular expressions in a helper process it can stop), paths and
sets, randomness, and the version test. Read by the templar; reads ``engine/``'s own modules and the
templating bounds.
"""
