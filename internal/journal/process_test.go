package journal

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary run as a writer process instead of the
// tests: os.Args[1:] are the mode, the state folder, the writer's name, the
// record count (or the largest record for "forever") and MaxSize.
const helperEnv = "BATON_JOURNAL_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		if err := runHelper(os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runHelper(args []string, out io.Writer) error {
	if len(args) != 5 {
		return fmt.Errorf("helper: got args %q; want mode dir name n maxsize", args)
	}
	mode, dir, name := args[0], args[1], args[2]
	n, err := strconv.Atoi(args[3])
	if err != nil {
		return err
	}
	maxSize, err := strconv.ParseInt(args[4], 10, 64)
	if err != nil {
		return err
	}
	j := Open(dir, Options{MaxSize: maxSize})
	switch mode {
	case "append": // n records of about 250 bytes
		for i := range n {
			rec := writerRecord(name, i, 120)
			if err := j.Append(rec); err != nil {
				return fmt.Errorf("%s: append %d: %w", name, i, err)
			}
		}
		return nil
	case "forever": // records of up to n bytes until killed; "ready" after the first
		g := newRecordGen(uint64(len(name)))
		for i := 0; ; i++ {
			if err := j.Append(writerRecord(name, i, g.r.IntN(n))); err != nil {
				return fmt.Errorf("%s: append %d: %w", name, i, err)
			}
			if i == 0 {
				fmt.Fprintln(out, "ready")
			}
		}
	}
	return fmt.Errorf("helper: unknown mode %q", mode)
}

// writerRecord is record i of a writer; Session names the writer and Offset
// numbers its records.
func writerRecord(name string, i, descLen int) Record {
	return Record{
		TS:      time.Now(),
		Tool:    "Edit",
		File:    "/home/dev/src/baton/internal/journal/append.go",
		Desc:    strings.Repeat("d", descLen),
		Event:   "PostToolUse",
		Session: name,
		Offset:  int64(i),
	}
}

// helper returns a writer process.
func helper(ctx context.Context, mode, dir, name string, n int, maxSize int64) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], mode, dir, name, strconv.Itoa(n), strconv.FormatInt(maxSize, 10))
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// rawLines returns every line of every segment, oldest first, and the bytes
// after the active file's last newline.
func rawLines(t *testing.T, j *Journal) (lines [][]byte, partial []byte) {
	t.Helper()
	segs, err := j.listArchive()
	if err != nil {
		t.Fatal(err)
	}
	var all [][]byte
	read := func(data []byte) []byte {
		parts := bytes.Split(data, []byte("\n"))
		all = append(all, parts[:len(parts)-1]...)
		return parts[len(parts)-1]
	}
	for _, s := range segs {
		sf, err := s.open()
		if err != nil {
			t.Fatal(err)
		}
		r, err := sf.readerFrom(0)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		sf.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rest := read(data); len(rest) > 0 {
			t.Fatalf("segment %s ends in %q; want a newline", s.base, rest)
		}
	}
	data, err := os.ReadFile(j.Path())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return all, read(data)
}

// checkWriters checks that the records of each writer named in counts come
// in order, each exactly once, and that there are counts[name] of them; a
// count of -1 only checks the order.
func checkWriters(t *testing.T, recs []Record, counts map[string]int) {
	t.Helper()
	next := map[string]int64{}
	for _, rec := range recs {
		want, ok := counts[rec.Session]
		if !ok {
			continue
		}
		if want == -1 {
			if rec.Offset < next[rec.Session] {
				t.Fatalf("%s record %d after record %d: duplicated or out of order", rec.Session, rec.Offset, next[rec.Session]-1)
			}
		} else if rec.Offset != next[rec.Session] {
			t.Fatalf("%s record %d: got it after record %d; want every record once, in order", rec.Session, rec.Offset, next[rec.Session]-1)
		}
		next[rec.Session] = rec.Offset + 1
	}
	for name, want := range counts {
		if want >= 0 && next[name] != int64(want) {
			t.Fatalf("%s: got %d records; want %d", name, next[name], want)
		}
	}
}

func TestConcurrentWriterProcesses(t *testing.T) {
	const writers = 8
	perWriter := 2000
	if testing.Short() || raceEnabled {
		perWriter = 300
	}
	tests := []struct {
		name    string
		maxSize int64
	}{
		{"one file", -1},
		{"rotating", 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			dir := t.TempDir()
			var cmds []*exec.Cmd
			var outs []*bytes.Buffer
			counts := map[string]int{}
			for w := range writers {
				name := fmt.Sprintf("writer%d", w)
				counts[name] = perWriter
				cmd := helper(ctx, "append", dir, name, perWriter, tt.maxSize)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, outs = append(cmds, cmd), append(outs, &out)
			}
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("writer%d: %v\n%s", i, err, outs[i])
				}
			}

			j := Open(dir, Options{MaxSize: tt.maxSize})
			lines, partial := rawLines(t, j)
			if len(lines) != writers*perWriter || len(partial) != 0 {
				t.Fatalf("journal: got %d lines and %q after the last newline; want %d lines", len(lines), partial, writers*perWriter)
			}
			for _, l := range lines {
				if _, ok := decodeLine(l); !ok {
					t.Fatalf("line %q: want an intact record", l)
				}
			}
			all, _ := scanAll(t, j, 0)
			recs := scannedRecords(all)
			checkWriters(t, recs, counts)
			sameRecords(t, "Tail", tailOf(t, j, 100, TailOptions{}), recs[len(recs)-100:])
			if tt.maxSize > 0 {
				names := archiveFiles(t, j)
				if countSuffix(names, gzExt) < 4 || countSuffix(names, plainExt) != 0 {
					t.Fatalf("archive: got %v; want several compressed segments and nothing else", names)
				}
			}
		})
	}
}

func TestKilledWriter(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	const maxSize = 256 << 10
	perWriter, minKills := 1500, 20
	if testing.Short() || raceEnabled {
		perWriter, minKills = 300, 5
	}

	// Two writers append steadily while victims are killed around them.
	counts := map[string]int{}
	done := make(chan error, 2)
	for w := range 2 {
		name := fmt.Sprintf("steady%d", w)
		counts[name] = perWriter
		cmd := helper(ctx, "append", dir, name, perWriter, maxSize)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			err := cmd.Wait()
			if err != nil {
				err = fmt.Errorf("%s: %w\n%s", name, err, out.String())
			}
			done <- err
		}()
	}

	running, kills := 2, 0
	for running > 0 || kills < minKills {
		// Victims write records of up to 1 MiB, so that a kill can land in
		// the middle of a write, or of a rotation.
		name := fmt.Sprintf("victim%d", kills)
		counts[name] = -1
		cmd := helper(ctx, "forever", dir, name, 1<<20, maxSize)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if ready, err := bufio.NewReader(stdout).ReadString('\n'); ready != "ready\n" {
			t.Fatalf("%s: got %q, %v; want ready\n%s", name, ready, err, stderr.String())
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		kills++
		for drained := false; !drained; {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				running--
			default:
				drained = true
			}
		}
	}

	j := Open(dir, Options{MaxSize: maxSize})
	lines, _ := rawLines(t, j)
	torn := 0
	for _, l := range lines {
		if _, ok := decodeLine(l); ok {
			continue
		}
		// A torn line is the start of one victim's record, ended by the
		// newline the next Append put before its own record.
		torn++
		if !bytes.HasPrefix(l, []byte(`{"ts":"`)) || bytes.Count(l, []byte(`"ts":`)) != 1 || bytes.Contains(l, []byte("steady")) {
			t.Fatalf("line %.200q: want an intact record or the start of a victim's record", l)
		}
	}
	t.Logf("%d kills, %d torn lines, %d lines, archive %d files", kills, torn, len(lines), len(archiveFiles(t, j)))
	if torn > kills {
		t.Fatalf("torn lines: got %d; want at most one per kill (%d)", torn, kills)
	}

	all, _ := scanAll(t, j, 0)
	recs := scannedRecords(all)
	checkWriters(t, recs, counts)
	sameRecords(t, "Tail", tailOf(t, j, 50, TailOptions{}), recs[len(recs)-50:])

	// Finishing what the victims left does not change the journal.
	if err := j.Compress(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ := scanAll(t, j, 0)
	sameRecords(t, "Scan after Compress", scannedRecords(after), recs)
	if n := countSuffix(archiveFiles(t, j), plainExt); n != 0 {
		t.Fatalf("uncompressed segments after Compress: got %d; want 0", n)
	}
}
