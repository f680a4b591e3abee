# Local daemons for the scripts that run them (hack/kafka/kafka.sh,
# hack/registry/registry.sh, hack/cluster/cluster.sh): start one detached with its PID
# recorded, tell whether that same process still runs, stop it by that PID and no
# other. Sourced; it defines functions only and logs through the caller's log().
#
# A PID file holds "PID STARTTIME": the start time tells a reused PID (after a reboot,
# say) from the process the script started.

# daemon_starttime PID: the process's start time in clock ticks since boot (field 22
# of /proc/PID/stat, counted after the parenthesised command name, which may hold
# spaces); empty when there is no such process.
daemon_starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $20}'; }

# daemon_pid PIDFILE: the recorded PID.
daemon_pid() { awk '{print $1}' "$1"; }

# daemon_alive PIDFILE: the process recorded in PIDFILE still runs (a zombie does not:
# it has released everything and only waits to be reaped).
daemon_alive() {
  local pid st
  [[ -f "$1" ]] || return 1
  read -r pid st <"$1" || return 1
  [[ -n "$pid" && -n "$st" && "$(daemon_starttime "$pid")" == "$st" ]] && ! daemon_zombie "$pid"
}

# daemon_zombie PID: the process has exited and waits for its parent to reap it.
daemon_zombie() { [[ "$(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null)" == Z ]]; }

# daemon_gone PID: no such process, or only its zombie. A leader shows Z while its
# other threads still exit (a JVM's sockets and locks close with the last one), so a
# zombie counts once it is the only task left.
daemon_gone() {
  [[ ! -e "/proc/$1" ]] && return
  daemon_zombie "$1" || return 1
  local tasks=("/proc/$1/task"/*)
  ((${#tasks[@]} <= 1))
}

# daemon_adopt PIDFILE MARKER: a PID file of the scripts' earlier format (the PID
# alone) gains the start time when that PID's command line holds MARKER, so a daemon
# started before an upgrade is still recognised and stopped; otherwise it is removed.
daemon_adopt() {
  local pid st
  [[ -f "$1" ]] || return 0
  read -r pid st <"$1" || true
  [[ -z "$st" ]] || return 0
  if [[ -n "$pid" ]] && grep -qF -- "$2" "/proc/$pid/cmdline" 2>/dev/null; then
    echo "$pid $(daemon_starttime "$pid")" >"$1"
  else
    rm -f "$1"
  fi
}

# daemon_start PIDFILE LOGFILE CMD...: CMD in its own session with stdin from
# /dev/null and its output appended to LOGFILE; PIDFILE records it. The subshell closes
# every descriptor above 2 first (a lock the caller holds, say under `flock FILE make
# test`, must not stay held for the daemon's life) and then becomes CMD, so $! is
# CMD's PID and its start time is the subshell's.
daemon_start() {
  local pidfile=$1 logfile=$2
  shift 2
  # Without job control the subshell joins the caller's process group, so it cannot
  # lead one and setsid never forks: $! stays CMD.
  set +m
  (
    for fd in /proc/self/fd/*; do
      fd="${fd##*/}"
      if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    exec setsid "$@" >>"$logfile" 2>&1 </dev/null
  ) &
  local pid=$!
  echo "$pid $(daemon_starttime "$pid")" >"$pidfile"
}

# daemon_stop PIDFILE SECONDS NAME: SIGTERM to the recorded process, SIGKILL if it has
# not exited within SECONDS; removes PIDFILE. Does nothing (but remove a stale PIDFILE)
# when the recorded process no longer runs.
daemon_stop() {
  local pidfile=$1 grace=$2 name=$3 pid
  if ! daemon_alive "$pidfile"; then rm -f "$pidfile"; return; fi
  pid="$(daemon_pid "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + grace))
  until daemon_gone "$pid"; do
    if ((SECONDS >= deadline)); then
      log "$name (pid $pid) ignored SIGTERM for ${grace}s; killing"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$pidfile"
  log "stopped $name (pid $pid)"
}

# daemon_kill PIDFILE NAME DEADLINE: SIGKILL the recorded process (as a pod kill does)
# and wait until it has exited, failing once $SECONDS passes DEADLINE; removes PIDFILE.
# Fails when it does not run.
daemon_kill() {
  local pidfile=$1 name=$2 deadline=$3 pid
  if ! daemon_alive "$pidfile"; then log "$name is not running: nothing to kill"; return 1; fi
  pid="$(daemon_pid "$pidfile")"
  kill -KILL "$pid"
  until daemon_gone "$pid"; do
    if ((SECONDS > deadline)); then log "$name (pid $pid) still alive after SIGKILL"; return 1; fi
    sleep 0.1
  done
  rm -f "$pidfile"
  log "killed $name (pid $pid)"
}

# daemon_port_open HOST PORT: something accepts connections there.
daemon_port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
