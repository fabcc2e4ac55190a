package workflow

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
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

// env is the session core's environment for o.
func (o Options) env() session.Env {
	return session.Env{Getenv: o.Getenv, JJBin: o.JJBin, Now: o.Now}
}

// now is o's clock.
func (o Options) now() time.Time { return o.env().Clock() }

// jj is a jj client in dir with o's executable.
func (o Options) jj(dir string) *jj.Client {
	c := jj.New(dir)
	if o.JJBin != "" {
		c.Bin = o.JJBin
	}
	return c
}

// scope is what start, continue and resume work on: the session core's
// Scope. The state repo is opened only to fetch a teammate's lineage
// (fetchLineage).
type scope struct {
	*session.Scope
}

// scope opens the repo at o.Dir and its transcript store.
func (o Options) scope() (*scope, error) {
	t, err := session.Open(o.env(), session.Event{Cwd: o.Dir})
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
