package gate

import "testing"

// TestServerClients: a command that asks a server to act is sure to modify
// (the OS sandbox cannot hold the server); one that only asks it for
// information reads. The corpora (corpus_modifying_test.go) run the
// servers that can run here for real.
func TestServerClients(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cmd  string
		sure bool // asks a server to act; else read-only
	}{
		{"tmux send-keys -t 0 'rm -rf .' Enter", true},
		{"tmux -S /tmp/s run-shell 'touch x'", true},
		{"tmux ls \\; new-window 'touch x'", true},
		{"tmux list-sessions; tmux splitw 'touch x'", true},
		{"tmux display '#(touch x)'", true},
		{"tmux set-buffer x \\; save-buffer notes.txt", true},
		{"tmux", true},
		{"tmux -C attach", true},
		{"screen -S work -X stuff 'touch x\\n'", true},
		{"screen -dmS x touch y", true},
		{"zellij action write-chars x", true},
		{"kitty @ send-text x", true},
		{"xdotool type x", true},
		{"osascript -e 'tell application \"Terminal\" to do script \"x\"'", true},
		{"xdg-open notes.txt", true},
		{"docker run --rm -v \"$PWD\":/w alpine touch /w/x", true},
		{"docker exec dev touch x", true},
		{"docker compose up -d", true},
		{"docker -H ssh://me@localhost run alpine", true},
		{"podman run -v .:/w alpine", true},
		{"kubectl exec pod -- touch x", true},
		{"kubectl -n dev cp f pod:/x", true},
		{"helm -n dev install x ./chart", true},
		{"minikube mount .:/w", true},
		{"flatpak-spawn --host touch x", true},
		{"ssh localhost touch x", true},
		{"ssh -p 22 me@127.0.0.1", true},
		{"scp f localhost:x", true},
		{"rsync -a f localhost:x", true},
		{"rsync -a f rsync://localhost/m/x", true},
		{"rsync -e ssh f x", true},
		{"systemctl --user start x", true},
		{"systemd-run --user touch x", true},
		{"service nginx reload", true},
		{"echo 'touch x' | at now", true},
		{"crontab f", true},
		{"emacsclient -e '(shell-command \"touch x\")'", true},
		{"nvim --server /tmp/s --remote-send ':!touch x<CR>'", true},
		{"dbus-send --session --dest=x / x.y", true},
		{"gdbus call --session --dest x --object-path / --method x.y", true},
		{"busctl --user call x / x y", true},
		{"gsettings set org.gnome.x y z", true},
		{"psql -c 'select 1'", true},
		{"redis-cli CONFIG SET dir /x", true},
		{"gdb -p 1234", true},
		{"gdb ./app 1234", true},
		{"jupyter console --existing", true},
		{"curl -s http://127.0.0.1:8080/x", true},
		{"curl -s -X PUT http://localhost:3000/x", true},
		{"curl localhost:3000", true},
		{"curl http://LOCALHOST./x", true},
		{"curl http://dev.localhost/x", true},
		{"curl http://printer.local/x", true},
		{"curl http://host.docker.internal/x", true},
		{"curl http://127.1/x", true},
		{"curl http://2130706433/x", true},
		{"curl http://0x7f000001/x", true},
		{"curl http://0177.0.0.1/x", true},
		{"curl http://0/x", true},
		{"curl 'http://[::1]:80/x'", true},
		{"curl 'http://[::ffff:127.0.0.1]/x'", true},
		{"curl http://10.0.0.5/x", true},
		{"curl http://192.168.1.2/x", true},
		{"curl http://169.254.169.254/x", true},
		{"curl http://100.64.1.1/x", true},
		{"curl http://user:pw@127.0.0.1/x", true},
		{"curl --url http://127.0.0.1/x", true},
		{"curl --unix-socket /var/run/docker.sock http://x/containers/json", true},
		{"curl --abstract-unix-socket x http://x/", true},
		{"curl --resolve example.com:80:127.0.0.1 http://example.com/", true},
		{"curl --resolve example.com:443:[::1] https://example.com/", true},
		{"curl --connect-to ::127.0.0.1:8080 http://example.com/", true},
		{"curl -x http://127.0.0.1:8080 http://example.com/", true},
		{"curl --socks5 localhost:1080 http://example.com/", true},
		{"curl \"$URL\"", true},
		{"curl \"http://localhost:$PORT/x\"", true},
		{"curl \"http://$HOST/x\"", true},
		{"curl 'http://{a,b}.example.com/'", true},
		{"curl sftp://example.com/x", true},
		{"wget -q -O - http://127.0.0.1/x", true},
		{"wget -i urls.txt", true},
		{"exec 3<>/dev/tcp/127.0.0.1/6379", true},
		{"cat < /dev/tcp/localhost/80", true},
		{"echo x > /dev/udp/127.0.0.1/53", true},
		{"echo x > \"/dev/tcp/$H/80\"", true},
		{"git ls-remote http://127.0.0.1:8080/x", true},
		{"git clone http://localhost/x ../tmp/x", true},
		{"git fetch \"http://$H/x\"", true},
		{"nc -N 127.0.0.1 6379", true},
		{"nc -U /run/x.sock", true},
		{"socat - TCP:localhost:8080", true},
		{"socat - UNIX-CONNECT:/run/x.sock", true},
		{"http :8080/x", true},
		{"xh localhost:3000/x", true},
		{"openssl s_client -connect 127.0.0.1:443", true},

		{"tmux -V", false},
		{"tmux ls", false},
		{"tmux -L work list-windows", false},
		{"tmux display -p '#{pane_id}'", false},
		{"tmux capture-pane -p -t 0", false},
		{"screen -ls", false},
		{"docker ps", false},
		{"docker run --help", false},
		{"docker compose up --help", false},
		{"docker image ls", false},
		{"docker --version", false},
		{"kubectl get pods", false},
		{"kubectl apply --help", false},
		{"kubectl -n dev logs x", false},
		{"helm list", false},
		{"ssh -V", false},
		{"ssh -G example.com", false},
		{"systemctl status", false},
		{"systemctl", false},
		{"systemctl --user list-units", false},
		{"service nginx status", false},
		{"crontab -l", false},
		{"at -l", false},
		{"atq", false},
		{"busctl list", false},
		{"launchctl list", false},
		{"vim --version", false},
		{"curl https://example.com/x", false},
		{"curl -s \"https://api.github.com/repos/$R/issues\"", false},
		{"curl -s file:///etc/hostname", false},
		{"curl -sI https://8.8.8.8/", false},
		{"wget -q -O - https://example.com/", false},
		{"git ls-remote https://github.com/x/y", false},
		{"git fetch", false},
		{"cat < /dev/null", false},
		{"rsync -n f ../tmp/x", false},
	} {
		t.Run(caseName(tt.cmd), func(t *testing.T) {
			t.Parallel()
			v := AnalyzeBashAt(tt.cmd, DefaultPolicy(), Where{})
			switch {
			case tt.sure && (!v.Modifies || !v.Sure):
				t.Errorf("%q: modifies=%v sure=%v (%s), want a sure modification", tt.cmd, v.Modifies, v.Sure, v.Reason)
			case !tt.sure && v.Modifies:
				t.Errorf("%q: modifies (%s), want read-only", tt.cmd, v.Reason)
			}
		})
	}
}

// TestLocalHost: every way of writing an address of this machine is local;
// other hosts are not looked up.
func TestLocalHost(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"", "localhost", "LocalHost.", "a.localhost", "x.local", "host.docker.internal", "127.0.0.1", "127.1",
		"127.255.255.254", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "0", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1",
		"[::1]", "10.1.2.3", "172.16.0.1", "192.168.0.1", "169.254.169.254", "fe80::1", "fd00::1", "100.100.1.1", "ex\u00e4mple.com", hostName()} {
		if !localHost(h) {
			t.Errorf("localHost(%q) = false, want true", h)
		}
	}
	for _, h := range []string{"example.com", "8.8.8.8", "2606:4700::1111", "github.com", "1.1.1.1", "127.0.0.1.example.com"} {
		if localHost(h) {
			t.Errorf("localHost(%q) = true, want false", h)
		}
	}
}
