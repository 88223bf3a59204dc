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
	"net/http"
	_ "net/http/pprof" // served only when NRAD_FERRETDB_PPROF names an address (profiling)
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:0", "TCP address to listen on")
	sqliteDir := flag.String("sqlite-dir", "", "directory for the SQLite backend (one file per database)")
	postgresURL := flag.String("postgresql-url", "", "use the PostgreSQL backend at this URL instead of SQLite")
	parentPID := flag.Int("parent-pid", 0, "exit when this process is gone")
	logLevel := flag.String("log-level", envOr("NRAD_FERRETDB_LOG_LEVEL", "warn"), "debug, info, warn or error")
	flag.Parse()
	tuneGC()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail("bad -log-level: %v", err)
	}
	// Diagnosis: NRAD_FERRETDB_LOG_FILE sends the log to a file (at debug, every SQL statement with
	// its time) instead of standard error.
	logTo := os.Stderr
	if path := os.Getenv("NRAD_FERRETDB_LOG_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fail("cannot open NRAD_FERRETDB_LOG_FILE: %v", err)
		}
		logTo = f
	}
	logger := slog.New(&lazyAttrs{Handler: slog.NewJSONHandler(logTo, &slog.HandlerOptions{Level: level})})

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
		// synchronous=NORMAL: in WAL mode a commit is not fsynced; an application crash loses
		// nothing, a power loss may undo the last commits but never corrupts (ADR 0002).
		cfg.SQLiteURL = "file:" + dir + "/?_pragma=synchronous(normal)&_pragma=cache_size(-65536)&_pragma=mmap_size(1073741824)&_pragma=wal_autocheckpoint(16384)&_pragma=temp_store(memory)"
	default:
		fail("one of -sqlite-dir or -postgresql-url is required")
	}

	// Profiling for benchmarks: NRAD_FERRETDB_PPROF=127.0.0.1:6060 serves /debug/pprof/ there.
	if addr := os.Getenv("NRAD_FERRETDB_PPROF"); addr != "" {
		go func() { logger.Warn("pprof stopped", "error", http.ListenAndServe(addr, nil)) }()
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

// tuneGC makes the collector run when the heap has grown fivefold (GOGC=400) instead of doubled,
// with a soft limit of 1 GiB, unless GOGC or GOMEMLIMIT say otherwise. The server's live heap is
// small (tens of MB: SQLite's pages live outside it), but every document written is converted
// several times (BSON, FerretDB's types, JSON), so the default collected every few milliseconds
// under a batch upload: about a tenth of the server's CPU (docs/adr/0002 item 8).
// The limit keeps a burst from growing the heap without bound.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
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

// lazyAttrs keeps the attributes of Logger.With until a record is written. FerretDB calls
// Logger.With(args...) around every SQL statement for a debug line, and the JSON handler would
// format those attributes (whole documents) at once, though debug is off: a twentieth of the
// server's CPU time on a bulk insert. Here they are formatted only for a record that is written.
type lazyAttrs struct {
	slog.Handler
	attrs []slog.Attr
}

func (h *lazyAttrs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &lazyAttrs{Handler: h.Handler, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...)}
}

func (h *lazyAttrs) WithGroup(name string) slog.Handler {
	return &lazyAttrs{Handler: h.materialized().WithGroup(name)}
}

func (h *lazyAttrs) Handle(ctx context.Context, r slog.Record) error {
	return h.materialized().Handle(ctx, r)
}

func (h *lazyAttrs) materialized() slog.Handler {
	if len(h.attrs) == 0 {
		return h.Handler
	}
	return h.Handler.WithAttrs(h.attrs)
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
