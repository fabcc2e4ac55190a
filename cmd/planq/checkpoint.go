package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
)

// checkpointOptions are the flags and argument of `planq checkpoint`'s
// subcommands.
type checkpointOptions struct {
	stateFlags
	Name string // the checkpoint, for create, restore and delete
}

func newCheckpointCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "Create, list, restore or delete save points of the agent's state and the code",
		Long: `A checkpoint records the current agent's state branch commit and the code
repo's jj operation. Restoring one brings back both: the state files (as a new
commit; history is never rewritten) and the code (jj op restore). Before a
restore, the current state is saved as an automatic checkpoint, so a restore
can itself be undone.

Checkpoints made here belong to you: the model (planq_checkpoint) may list and
restore them but never delete them. It may delete its own.`,
	}
	cmd.AddCommand(newCheckpointCreateCmd(a), newCheckpointListCmd(a), newCheckpointRestoreCmd(a), newCheckpointDeleteCmd(a))
	return cmd
}

func newCheckpointCreateCmd(a *app) *cobra.Command {
	o := &checkpointOptions{}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Save the agent's state and the code's jj operation as NAME",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runCheckpointCreate(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	return cmd
}

// runCheckpointCreate is `planq checkpoint create`.
func runCheckpointCreate(ctx context.Context, a *app, o *checkpointOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	cp, err := s.CreateCheckpoint(ctx, o.Name, staterepo.OwnerUser)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.Stdout, cp)
	}
	jjOp := "no jj operation (not a jj repo)"
	if cp.JJOp != "" {
		jjOp = "jj operation " + jj.ShortID(cp.JJOp)
	}
	fmt.Fprintf(a.Stdout, "Checkpoint %s: state %s, %s\n", cp.Name, jj.ShortID(cp.StateCommit), jjOp)
	return nil
}

func newCheckpointListCmd(a *app) *cobra.Command {
	o := &checkpointOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the current agent's checkpoints, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheckpointList(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	return cmd
}

// runCheckpointList is `planq checkpoint list`.
func runCheckpointList(ctx context.Context, a *app, o *checkpointOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	list, err := s.Checkpoints(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		if list == nil {
			list = []staterepo.Checkpoint{}
		}
		return writeJSON(a.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(a.Stdout, "No checkpoints for agent %s.\n", s.Agent)
		return nil
	}
	for _, cp := range list {
		fmt.Fprintf(a.Stdout, "%-32s %-5s %s  state %s  jj %s\n", cp.Name, cp.Owner, cp.Created.Local().Format("2006-01-02 15:04:05"), jj.ShortID(cp.StateCommit), orDash(jj.ShortID(cp.JJOp)))
	}
	return nil
}

func newCheckpointRestoreCmd(a *app) *cobra.Command {
	o := &checkpointOptions{}
	cmd := &cobra.Command{
		Use:   "restore NAME",
		Short: "Bring back checkpoint NAME: state files and code (jj op restore)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runCheckpointRestore(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	return cmd
}

// runCheckpointRestore is `planq checkpoint restore`.
func runCheckpointRestore(ctx context.Context, a *app, o *checkpointOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	res, err := s.RestoreCheckpoint(ctx, o.Name, staterepo.OwnerUser)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.Stdout, res)
	}
	fmt.Fprintf(a.Stdout, "Restored %s: %d state files changed; code %s.\nThe state before the restore is checkpoint %s.\n", res.Restored.Name, len(res.Changed), res.JJ, res.Auto.Name)
	if len(res.Dropped) > 0 {
		var parts []string
		n := 0
		for _, file := range []string{staterepo.ChangelogFile, staterepo.LearningsFile, staterepo.DecisionsFile} {
			if ids := res.Dropped[file]; len(ids) > 0 {
				n += len(ids)
				parts = append(parts, fmt.Sprintf("%s: %s", file, strings.Join(ids, ", ")))
			}
		}
		fmt.Fprintf(a.Stdout, "%d entries newer than %s left the current logs (%s); checkpoint %s keeps them (`planq checkpoint restore %s` brings them back).\n",
			n, res.Restored.Name, strings.Join(parts, "; "), res.Auto.Name, res.Auto.Name)
	}
	return nil
}

func newCheckpointDeleteCmd(a *app) *cobra.Command {
	o := &checkpointOptions{}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete checkpoint NAME (the commits it points at stay in history)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runCheckpointDelete(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	return cmd
}

// runCheckpointDelete is `planq checkpoint delete`.
func runCheckpointDelete(ctx context.Context, a *app, o *checkpointOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	if err := s.DeleteCheckpoint(ctx, o.Name, staterepo.OwnerUser); err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.Stdout, map[string]string{"deleted": o.Name})
	}
	fmt.Fprintf(a.Stdout, "Deleted checkpoint %s\n", o.Name)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
