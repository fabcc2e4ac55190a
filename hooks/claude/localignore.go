package claude

import (
	"context"

	"github.com/planq-dev/planq/hooks/conffile"
)

// LocalSettingsIgnore is the ignore pattern that keeps Claude Code's local
// settings file, where local scope puts planq's hooks, out of what jj and git
// track: were jj to snapshot it into the working-copy change, the next
// `jj new` elsewhere would take planq's hooks off the disk with it.
const LocalSettingsIgnore = "/.claude/settings.local.json"

// localIgnoreEdit returns the edit that adds LocalSettingsIgnore to the
// repo's own exclude file (conffile.ExcludeEdit).
func (o *InstallOptions) localIgnoreEdit(ctx context.Context) (conffile.FileEdit, error) {
	return conffile.ExcludeEdit(ctx, o.ProjectDir, o.JJBin,
		"Claude Code's local settings, where `planq mcp install` wires planq's hooks", LocalSettingsIgnore)
}
