package workflow

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/planq-dev/planq/hooks/session"
)

// Options say where a workflow works.
type Options struct {
	Dir    string              // a directory in the code repo
	Getenv func(string) string // environment; default os.Getenv
	JJBin  string              // jj executable; default "jj"
	Now    func() time.Time    // clock; default time.Now
}

func (o Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// scope is what start, continue and resume work on: the session core's
// Scope. The state repo is opened only to fetch a teammate's lineage
// (fetchLineage).
type scope struct {
	*session.Scope
}

// scope opens the repo at o.Dir and its transcript store.
func (o Options) scope() (*scope, error) {
	t, err := session.Open(session.Env{Getenv: o.Getenv, JJBin: o.JJBin, Now: o.Now}, session.Event{Cwd: o.Dir})
	if err != nil {
		return nil, err
	}
	return &scope{Scope: t}, nil
}

func notJJHint(err error) error {
	if errors.Is(err, session.ErrNotJJRepo) {
		return fmt.Errorf("%w: run `jj git init --colocate` here first", err)
	}
	return err
}
