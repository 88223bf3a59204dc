// Command nrad-ferretdb runs FerretDB v1 embedded, as NRAD's MongoDB-compatible server for local
// runs and tests (MongoDB itself cannot be installed on the development and CI machines).
//
// It listens on 127.0.0.1 (port 0 picks a free port), stores data in SQLite files under
// -sqlite-dir or in PostgreSQL with -postgresql-url, prints "ready <mongodb URI>" on stdout once it
// accepts connections, and stops cleanly on SIGINT/SIGTERM — or when -parent-pid exits, so a
// crashed test run does not leave it behind.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:0", "TCP address to listen on")
	sqliteDir := flag.String("sqlite-dir", "", "directory for the SQLite backend (one file per database)")
	postgresURL := flag.String("postgresql-url", "", "use the PostgreSQL backend at this URL instead of SQLite")
	parentPID := flag.Int("parent-pid", 0, "exit when this process is gone")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail("bad -log-level: %v", err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	cfg := &ferretdb.Config{Listener: ferretdb.ListenerConfig{TCP: *listen}, Logger: logger}
	switch {
	case *postgresURL != "":
		cfg.Handler = "postgresql"
		cfg.PostgreSQLURL = *postgresURL
	case *sqliteDir != "":
		dir, err := filepath.Abs(*sqliteDir)
		if err != nil {
			fail("bad -sqlite-dir: %v", err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			fail("cannot create %s: %v", dir, err)
		}
		cfg.Handler = "sqlite"
		// FerretDB wants a file: URI naming an existing directory, with a trailing slash.
		cfg.SQLiteURL = "file:" + dir + "/"
	default:
		fail("one of -sqlite-dir or -postgresql-url is required")
	}

	f, err := ferretdb.New(cfg)
	if err != nil {
		fail("cannot start FerretDB: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *parentPID > 0 {
		ctx = watchParent(ctx, *parentPID)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := f.Run(ctx); err != nil {
			logger.Error("FerretDB stopped", "error", err)
		}
	}()

	// MongoDBURI waits until the listener has its address, i.e. accepts connections.
	fmt.Printf("ready %s\n", f.MongoDBURI())
	<-done
}

// watchParent cancels the context once the parent process no longer exists.
func watchParent(parent context.Context, pid int) context.Context {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if os.Getppid() != pid || syscall.Kill(pid, 0) != nil {
					cancel()
					return
				}
			}
		}
	}()
	return ctx
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nrad-ferretdb: "+format+"\n", args...)
	os.Exit(2)
}
