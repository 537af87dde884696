import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { isAnsibleDocument, isForeignYaml, isTaskItem, pathVerdict, topLevel } from "../detection";

const PLAYBOOK = `---
# deploy the web tier
- name: web servers
  hosts: webservers
  become: true
  vars:
    port: 8080
  roles:
    - role: web
      tags: web
  tasks:
  - name: open the port
    ansible.posix.firewalld:
      port: "{{ port }}/tcp"
      state: enabled
`;

const IMPORTS = `- import_playbook: web.yml
- ansible.builtin.import_playbook: db.yml
  tags: db
`;

const TASKS_FQCN = `- name: install nginx
  ansible.builtin.apt:
    name: nginx
    state: present

- name: start nginx
  ansible.builtin.service:
    name: nginx
    state: started
`;

const TASKS_SHORT = `---
- name: copy the configuration
  template:
    src: nginx.conf.j2
    dest: /etc/nginx/nginx.conf
  notify: restart nginx
- name: check
  command: nginx -t
  changed_when: false
  tags: [check]
`;

const TASKS_BLOCK = `- block:
    - debug:
        msg: hi
  when: ansible_os_family == "Debian"
  rescue:
    - fail:
        msg: failed
`;

const TASKS_NAME_WHEN = `- name: only on Debian
  when: ansible_os_family == "Debian"
  vars:
    x: 1
`;

const TASK_SCALAR = `- name: a script
  shell: |
    - hosts: not a key
    echo hello
  args:
    chdir: /tmp
`;

const K8S = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: nginx
          command: ["nginx"]
`;

const K8S_LIST_ITEMS = `---
apiVersion: v1
kind: Service
metadata:
  name: web
---
apiVersion: v1
kind: ConfigMap
`;

const WORKFLOW = `name: CI
on:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - name: checkout
        uses: actions/checkout@v4
      - name: test
        run: make test
        shell: bash
`;

const HOME_ASSISTANT = `- id: '1700000000000'
  alias: Lights on at sunset
  trigger:
    - platform: sun
      event: sunset
  action:
    - service: light.turn_on
      target:
        entity_id: light.living_room
`;

const PRE_COMMIT_HOOKS = `- id: playbook-ls
  name: playbook-ls
  entry: playbook-ls check
  language: python
  types: [yaml]
`;

const JSON_PATCH = `- op: replace
  path: /spec/replicas
  value: 3
`;

const VARS = `---
http_port: 80
packages:
  - nginx
  - git
`;

describe("topLevel", () => {
  it("reads the keys of each top-level item", () => {
    const top = topLevel(PLAYBOOK);
    assert.equal(top.shape, "list");
    assert.deepEqual(top.items, [["name", "hosts", "become", "vars", "roles", "tasks"]]);
  });

  it("skips block scalars and nested lists", () => {
    assert.deepEqual(topLevel(TASK_SCALAR).items, [["name", "shell", "args"]]);
  });

  it("sees mappings, empty documents and items written with '-' alone", () => {
    assert.equal(topLevel(K8S).shape, "mapping");
    assert.deepEqual(topLevel(K8S).items[0], ["apiVersion", "kind", "metadata", "spec"]);
    assert.equal(topLevel("---\n# nothing yet\n").shape, "empty");
    assert.equal(topLevel("").shape, "empty");
    assert.deepEqual(topLevel("-\n  name: x\n  debug:\n    msg: y\n").items, [["name", "debug"]]);
  });

  it("reads only the first document", () => {
    assert.deepEqual(topLevel(K8S_LIST_ITEMS).items[0], ["apiVersion", "kind", "metadata"]);
  });

  it("handles an indented top-level list, CRLF and quoted keys", () => {
    const text = '  - "hosts": all\r\n    tasks: []\r\n  - name: two\r\n    import_playbook: x.yml\r\n';
    assert.deepEqual(topLevel(text).items, [["hosts", "tasks"], ["name", "import_playbook"]]);
  });
});

describe("isTaskItem", () => {
  it("knows tasks by module or keyword", () => {
    assert.equal(isTaskItem(["name", "ansible.builtin.copy"]), true);
    assert.equal(isTaskItem(["community.general.ufw"]), true);
    assert.equal(isTaskItem(["debug"]), true);
    assert.equal(isTaskItem(["name", "copy"]), true);
    assert.equal(isTaskItem(["name", "tags"]), true);
    assert.equal(isTaskItem(["block", "rescue"]), true);
    assert.equal(isTaskItem(["include_tasks"]), true);
  });

  it("is not fooled by lists of other things", () => {
    assert.equal(isTaskItem(["id", "name", "entry", "language", "types"]), false);
    assert.equal(isTaskItem(["op", "path", "value"]), false);
    assert.equal(isTaskItem(["id", "alias", "trigger", "action"]), false);
    assert.equal(isTaskItem(["name"]), false);
    assert.equal(isTaskItem(["file"]), false);
  });
});

describe("pathVerdict", () => {
  it("knows role files, playbook places and foreign files", () => {
    assert.equal(pathVerdict("roles/web/tasks/main.yml"), "role");
    assert.equal(pathVerdict("/srv/repo/roles/web/handlers/main.yaml"), "role");
    assert.equal(pathVerdict("roles/web/meta/main.yml"), "role");
    assert.equal(pathVerdict("roles/web/defaults/main.yml"), "role");
    assert.equal(pathVerdict("roles/web/vars/Debian.yml"), "role");
    assert.equal(pathVerdict("roles/web/tasks/install/debian.yml"), "role");
    assert.equal(pathVerdict("C:\\work\\infra\\roles\\db\\tasks\\main.yml"), "role");
    assert.equal(pathVerdict("collections/ansible_collections/acme/web/roles/nginx/tasks/main.yml"), "role");
    assert.equal(pathVerdict("roles/web/templates/nginx.yml"), "unknown");
    assert.equal(pathVerdict("roles/web/files/compose.yml"), "foreign");
    assert.equal(pathVerdict("playbooks/deploy.yml"), "likely");
    assert.equal(pathVerdict("site.yml"), "likely");
    assert.equal(pathVerdict("playbook-upgrade.yaml"), "likely");
    assert.equal(pathVerdict("tasks/common.yml"), "likely");
    assert.equal(pathVerdict("group_vars/all.yml"), "vars");
    assert.equal(pathVerdict("inventory/host_vars/web1/main.yml"), "vars");
    assert.equal(pathVerdict("playbooks/group_vars/all.yml"), "vars");
    assert.equal(pathVerdict(".playbook-ls.yml"), "vars");
    assert.equal(pathVerdict("requirements.yml"), "vars");
    assert.equal(pathVerdict(".github/workflows/ci.yml"), "foreign");
    assert.equal(pathVerdict("docker-compose.yml"), "foreign");
    assert.equal(pathVerdict(".gitlab-ci.yml"), "foreign");
    assert.equal(pathVerdict("k8s/deployment.yaml"), "unknown");
  });
});

describe("isAnsibleDocument", () => {
  it("accepts playbooks anywhere, by content", () => {
    assert.equal(isAnsibleDocument("deploy.yml", PLAYBOOK), true);
    assert.equal(isAnsibleDocument("ops/upgrade.yaml", IMPORTS), true);
    assert.equal(isAnsibleDocument("molecule/default/converge.yml", "- hosts: all\n  roles: [web]\n"), true);
  });

  it("accepts task files outside roles, by content", () => {
    assert.equal(isAnsibleDocument("common/setup.yml", TASKS_FQCN), true);
    assert.equal(isAnsibleDocument("common/setup.yml", TASKS_SHORT), true);
    assert.equal(isAnsibleDocument("common/block.yml", TASKS_BLOCK), true);
    assert.equal(isAnsibleDocument("common/when.yml", TASKS_NAME_WHEN), true);
    assert.equal(isAnsibleDocument("common/script.yml", TASK_SCALAR), true);
  });

  it("accepts every file of a role's tasks, handlers, meta, defaults and vars", () => {
    assert.equal(isAnsibleDocument("roles/web/tasks/main.yml", ""), true);
    assert.equal(isAnsibleDocument("roles/web/defaults/main.yml", VARS), true);
    assert.equal(isAnsibleDocument("roles/web/meta/main.yml", "dependencies:\n  - role: common\n"), true);
  });

  it("accepts lists and new files in playbook places, not mappings", () => {
    assert.equal(isAnsibleDocument("site.yml", ""), true);
    assert.equal(isAnsibleDocument("playbooks/new.yml", "---\n"), true);
    assert.equal(isAnsibleDocument("playbooks/web.yml", "- hosts: web\n"), true);
    assert.equal(isAnsibleDocument("playbooks/vars/main.yml", VARS), false);
    assert.equal(isAnsibleDocument("tasks/extra.yml", "- name: x\n  foo: bar\n"), true);
  });

  it("leaves other YAML alone", () => {
    assert.equal(isAnsibleDocument("k8s/deployment.yaml", K8S), false);
    assert.equal(isAnsibleDocument("k8s/all.yaml", K8S_LIST_ITEMS), false);
    assert.equal(isAnsibleDocument(".github/workflows/ci.yml", WORKFLOW), false);
    assert.equal(isAnsibleDocument("ci.yml", WORKFLOW), false);
    assert.equal(isAnsibleDocument("automations.yaml", HOME_ASSISTANT), false);
    assert.equal(isAnsibleDocument(".pre-commit-hooks.yaml", PRE_COMMIT_HOOKS), false);
    assert.equal(isAnsibleDocument("hooks.yaml", PRE_COMMIT_HOOKS), false);
    assert.equal(isAnsibleDocument("overlays/patch.yaml", JSON_PATCH), false);
    assert.equal(isAnsibleDocument("config.yml", ""), false);
    assert.equal(isAnsibleDocument("mkdocs.yml", "nav:\n  - index.md\n"), false);
  });

  it("leaves variables to the server's own reading", () => {
    assert.equal(isAnsibleDocument("group_vars/all.yml", VARS), false);
    assert.equal(isAnsibleDocument("host_vars/web1.yml", VARS), false);
    assert.equal(isAnsibleDocument("vars/common.yml", VARS), false);
  });

  it("does not take a compose file under playbooks/ for a playbook", () => {
    assert.equal(isAnsibleDocument("playbooks/files/docker-compose.yml", "services:\n  web: {}\n"), false);
  });
});

describe("isForeignYaml", () => {
  it("drops Kubernetes manifests and workflows, keeps Ansible's files", () => {
    assert.equal(isForeignYaml("k8s/deployment.yaml", K8S), true);
    assert.equal(isForeignYaml(".github/workflows/ci.yml"), true);
    assert.equal(isForeignYaml("ci.yml", WORKFLOW), true);
    assert.equal(isForeignYaml("site.yml", PLAYBOOK), false);
    assert.equal(isForeignYaml("group_vars/all.yml", VARS), false);
    assert.equal(isForeignYaml(".playbook-ls.yml", "select: [PLS1]\n"), false);
    assert.equal(isForeignYaml("roles/web/tasks/main.yml", TASKS_FQCN), false);
    assert.equal(isForeignYaml("k8s/deployment.yaml"), false);
    assert.equal(isForeignYaml("tasks/build.yaml", K8S), true, "a Tekton task is not an Ansible task file");
  });

  it("reads Helm templates past their directives", () => {
    const helm = "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n";
    assert.equal(isForeignYaml("charts/web/templates/configmap.yaml", helm), true);
    assert.equal(isAnsibleDocument("charts/web/templates/configmap.yaml", helm), false);
  });
});
