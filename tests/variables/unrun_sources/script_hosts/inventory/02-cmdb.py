#!/usr/bin/env python3
"""A CMDB: the racks of the hosts, a group of backup hosts, a variable for the web group."""
import json
import sys

if len(sys.argv) > 1 and sys.argv[1] == "--host":
    print("{}")
else:
    print(json.dumps({
        "backup": {"hosts": ["bk-1", "db-1"], "vars": {"backup_window": "02:00"}},
        "web": {"vars": {"web_rack": "r12"}},
        "_meta": {"hostvars": {"bk-1": {"backup_target": "s3://backups"}}},
    }))
