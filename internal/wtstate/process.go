package wtstate

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// Process identifies a running process: its pid and, where the system says
// (Linux), its start time in clock ticks after boot, so that a pid the
// system gave to another process later is not taken for it, and the pid
// namespace the pid is a number in, so that a process in a container is not
// looked for among the host's (or the other way round).
type Process struct {
	PID   int    `json:"pid,omitempty"`
	Start uint64 `json:"start,omitempty"`
	NS    uint64 `json:"ns,omitempty"`
}

// shells are the programs an agent may run a hook command through; the
// agent is the shell's parent then.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ash": true, "busybox": true}

// Agent returns the agent process that ran this hook: the parent process,
// or its parent when the parent is a shell the hook command ran in. The
// zero Process when it cannot be told.
func Agent() Process {
	pid := os.Getppid()
	if pid <= 1 {
		return Process{}
	}
	// The hook's parent is in the hook's pid namespace.
	ns := pidNS()
	st, ok := procStat(pid)
	if !ok {
		return Process{PID: pid, NS: ns}
	}
	if shells[st.comm] && st.ppid > 1 {
		if up, ok := procStat(st.ppid); ok {
			return Process{PID: st.ppid, Start: up.start, NS: ns}
		}
		return Process{PID: st.ppid, NS: ns}
	}
	return Process{PID: pid, Start: st.start, NS: ns}
}

// pidNS returns the identity of this process's pid namespace (the inode of
// /proc/self/ns/pid), or 0 where the system does not say. A process never
// leaves its pid namespace, so it is looked up once, not for every session
// a start checks.
var pidNS = sync.OnceValue(func() uint64 {
	fi, err := os.Stat("/proc/self/ns/pid")
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
})

// Alive reports whether p is still running; known is false when p says too
// little to tell (no pid) or when its pid is a number in another pid
// namespace than this process's (a container's), where it cannot be looked
// for.
func (p Process) Alive() (alive, known bool) {
	if p.PID <= 0 {
		return false, false
	}
	if own := pidNS(); p.NS != 0 && own != 0 && p.NS != own {
		return false, false
	}
	err := syscall.Kill(p.PID, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false, true
	}
	if st, ok := procStat(p.PID); ok {
		if p.Start != 0 && st.start != p.Start {
			return false, true // the pid now names another process
		}
		if st.state == 'Z' || st.state == 'X' {
			return false, true // exited, not yet reaped by its parent
		}
	}
	return true, true
}

type stat struct {
	state byte
	comm  string
	ppid  int
	start uint64
}

// procStat reads /proc/<pid>/stat: "pid (comm) state ppid … starttime …",
// starttime being the 22nd field. comm may hold spaces and parentheses, so
// the fields are counted after its last ')'.
func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return stat{}, false
	}
	s := stat{comm: string(b[open+1 : end])}
	fields := bytes.Fields(b[end+1:])
	// fields[0] is the state (field 3), so field n is fields[n-3].
	if len(fields) < 20 {
		return stat{}, false
	}
	s.state = fields[0][0]
	s.ppid, _ = strconv.Atoi(string(fields[1]))
	s.start, _ = strconv.ParseUint(string(fields[19]), 10, 64)
	return s, true
}
