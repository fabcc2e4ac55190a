package opencode

import (
	"encoding/json"
	"testing"
)

func TestSandboxable(t *testing.T) {
	t.Parallel()
	perm := func(global string, agents ...string) Permissions {
		p := Permissions{}
		if global != "" {
			p.Global = json.RawMessage(global)
		}
		for _, a := range agents {
			p.Agents = append(p.Agents, json.RawMessage(a))
		}
		return p
	}
	const proj, sub = "/p", "/p/sub"
	tests := []struct {
		name    string
		command string
		dir     string
		perms   Permissions
		want    bool
	}{
		{"no config", "python3 -c 'print(1)'", proj, perm(""), true},
		{"bash allowed", "ls", proj, perm(`{"bash":"allow"}`), true},
		{"bash asked", "ls", proj, perm(`{"bash":"ask"}`), false},
		{"everything asked", "ls", proj, perm(`"ask"`), false},
		{"everything allowed", "cat /etc/hosts", proj, perm(`"allow"`), true},
		{"* asked, no bash key", "ls", proj, perm(`{"*":"ask","read":"allow"}`), false},
		{"bash * asked", "ls", proj, perm(`{"bash":{"*":"ask","ls *":"allow"}}`), false},
		{"a rule names the program", "git push origin", proj, perm(`{"bash":{"*":"allow","git push *":"ask"}}`), false},
		{"a rule names it by path", "/usr/bin/git log", proj, perm(`{"bash":{"git *":"deny"}}`), false},
		{"a rule names another program", "ls -la", proj, perm(`{"bash":{"*":"allow","git push *":"ask"}}`), true},
		{"a pattern with a glob in its first word", "ls", proj, perm(`{"bash":{"g*":"deny"}}`), false},
		{"an agent's rule", "rm -rf x", proj, perm(`{"bash":"allow"}`, `{"bash":{"rm *":"deny"}}`), false},
		{"an agent asks everything", "ls", proj, perm("", `"ask"`), false},
		{"cat inside", "cat README.md sub/a.txt", proj, perm(""), true},
		{"cat outside", "cat /etc/hosts", proj, perm(""), false},
		{"cat of ~", "cat ~/.ssh/id_rsa", proj, perm(""), false},
		{"cd up and out", "cd ../.. && ls", sub, perm(""), false},
		{"cd up, still inside", "cd .. && ls", sub, perm(""), true},
		{"cat of an expansion", `cat "$HOME/x"`, proj, perm(""), false},
		{"cp with flags inside", "cp -r a b", proj, perm(""), true},
		{"outside, external dirs allowed", "cat /etc/hosts", proj, perm(`{"external_directory":"allow"}`), true},
		{"outside, allowed globally but an agent asks", "cat /etc/hosts", proj, perm(`{"external_directory":"allow"}`, `{"external_directory":"ask"}`), false},
		{"outside, external dirs by pattern", "cat /etc/hosts", proj, perm(`{"external_directory":{"/etc/*":"allow"}}`), false},
		{"a program OpenCode does not check", "ls /etc", proj, perm(""), true},
		{"nested in a subshell", "(cd / && ls)", proj, perm(""), false},
		{"does not parse", "cat 'x", proj, perm(""), false},
	}
	for _, tt := range tests {
		if got := sandboxable(tt.command, tt.dir, proj, tt.perms); got != tt.want {
			t.Errorf("%s: sandboxable(%q in %s) = %v, want %v", tt.name, tt.command, tt.dir, got, tt.want)
		}
	}
}
