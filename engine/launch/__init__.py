"""Launch: how a playbook is started. Launch profiles (what a command line or a job template sets), the
option variables and ``vars_prompt`` answers a launch gives, and job templates read from their files.
Reads ``engine/``'s own modules, the keyword table and the run options of the magic variables.
"""
