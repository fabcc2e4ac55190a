package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// substitutionCases are commands with Gemini CLI's verdict on each (true:
// refused as a command injection).
var substitutionCases = []struct {
	command string
	refused bool
}{
	{"echo hi", false},
	{"echo $(pwd)", true},
	{`echo "$(pwd)"`, true},
	{"echo '$(pwd)'", false},
	{"echo `pwd`", true},
	{"echo '`pwd`'", false},
	{"echo \"\\`pwd\\`\"", false},
	{`echo \$(pwd)`, false},
	{`echo "\$(pwd)"`, false},
	{"diff <(ls a) <(ls b)", true},
	{"tee >(cat)", true},
	{`echo "<(x)"`, false},
	{`echo ">(x)"`, false},
	{"echo $HOME ${HOME} $((1+2))", true}, // $(( is "$(" to Gemini CLI too
	{"cat <<'EOF'\n$(x)\nEOF", true},      // heredocs are not understood
	{"# $(comment)\necho", true},          // nor comments
	{`echo "it's" $(x)`, true},
	{`echo 'a"b' "$(x)"`, true},
	{"echo '", false},
	{`echo \`, false},
	{"echo \\\n$(x)", true},
	{"printf '%s' \"a\\\"b\" $(x)", true},
	{"ls <(", true},
	{"x=$", false},
	{"echo é$(x)", true},
	{"echo 'é' \\é $(x)", true},
	{"cat < (x)", false},
	{"echo $ (x)", false},
}

func TestRefusesSubstitution(t *testing.T) {
	t.Parallel()
	for _, c := range substitutionCases {
		if got := refusesSubstitution(c.command); got != c.refused {
			t.Errorf("refusesSubstitution(%q) = %v, want %v", c.command, got, c.refused)
		}
	}
}

// TestRefusesSubstitutionAsGemini runs Gemini CLI's own check, taken from
// the pinned CLI's bundle, on every case, under node: planq's port must
// agree with it on each.
func TestRefusesSubstitutionAsGemini(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "runs the Gemini CLI bundle with node")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	bin, err := filepath.EvalSymlinks(fakemodel.EnsureGemini(t))
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "*.js"))
	fn := regexp.MustCompile(`(?s)\nfunction detectBashSubstitution\(command\) \{\n.*?\n\}\n`)
	var src []byte
	for _, c := range chunks {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if src = fn.Find(b); src != nil {
			break
		}
	}
	if src == nil {
		t.Fatalf("no detectBashSubstitution in %s: has Gemini CLI renamed its check?", filepath.Dir(bin))
	}
	var commands []string
	for _, c := range substitutionCases {
		commands = append(commands, c.command)
	}
	in, _ := json.Marshal(commands)
	script := string(src) + "\nconst cs = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nprocess.stdout.write(JSON.stringify(cs.map(detectBashSubstitution)));\n"
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var verdicts []bool
	if err := json.Unmarshal(out, &verdicts); err != nil || len(verdicts) != len(commands) {
		t.Fatalf("node answered %s (%v)", out, err)
	}
	for i, c := range commands {
		if verdicts[i] != refusesSubstitution(c) {
			t.Errorf("Gemini CLI says %v for %q, planq says %v", verdicts[i], c, !verdicts[i])
		}
	}
}
