#!/usr/bin/env bash
# Starts and stops the Cloud SDK's Firestore emulator for lakesql's tests.
#
#   eval "$(scripts/firestore-emulator.sh start)"   # prints export FIRESTORE_EMULATOR_HOST=127.0.0.1:PORT
#   go test ./catalogstore/meta/...
#   scripts/firestore-emulator.sh stop
#
# Commands: start | stop | status | env. start waits until the emulator
# answers; when one started by this script is already running it only
# prints its address. The emulator runs in its own process group, so stop
# ends it and nothing else.
#
# It runs the emulator jar with java directly: no gcloud component install,
# no prompt, no network. Settings (environment):
#   FIRESTORE_EMULATOR_PORT  port to listen on (default: the first free one from 8681)
#   FIRESTORE_EMULATOR_JAR   the jar (default: found under the Cloud SDK)
#   LAKESQL_FIRESTORE_STATE  prefix of the pid, address and log files (default /tmp/lakesql-firestore)
#   FIRESTORE_EMULATOR_WAIT  seconds to wait for it to answer (default 90)
set -euo pipefail

state=${LAKESQL_FIRESTORE_STATE:-/tmp/lakesql-firestore}
pidfile=$state.pid
hostfile=$state.host
logfile=$state.log
wait_s=${FIRESTORE_EMULATOR_WAIT:-90}

die() { echo "firestore-emulator: $*" >&2; exit 1; }
say() { echo "firestore-emulator: $*" >&2; }

running() { # the recorded emulator is alive
	[[ -s $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

answers() { # $1 = host:port; the emulator's root answers "Ok"
	if command -v curl >/dev/null; then
		[[ $(curl -s -m 2 "http://$1/" 2>/dev/null) == Ok* ]]
	else
		(exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null
	fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

find_jar() {
	if [[ -n ${FIRESTORE_EMULATOR_JAR:-} ]]; then
		[[ -f $FIRESTORE_EMULATOR_JAR ]] || die "FIRESTORE_EMULATOR_JAR=$FIRESTORE_EMULATOR_JAR does not exist"
		echo "$FIRESTORE_EMULATOR_JAR"
		return
	fi
	# The usual Cloud SDK roots first: gcloud info takes a second or two.
	local roots=(/usr/lib/google-cloud-sdk /usr/share/google-cloud-sdk /opt/google-cloud-sdk "$HOME/google-cloud-sdk")
	local r rel=platform/cloud-firestore-emulator/cloud-firestore-emulator.jar
	for r in "${roots[@]}" gcloud; do
		if [[ $r == gcloud ]]; then
			command -v gcloud >/dev/null || continue
			r=$(gcloud info --format='value(installation.sdk_root)' 2>/dev/null || true)
			roots+=("$r (gcloud info)")
		fi
		if [[ -n $r && -f $r/$rel ]]; then
			echo "$r/$rel"
			return
		fi
	done
	die "no cloud-firestore-emulator.jar under the Cloud SDK (${roots[*]}); install the component" \
		"cloud-firestore-emulator or set FIRESTORE_EMULATOR_JAR"
}

start() {
	if running && [[ -s $hostfile ]] && answers "$(cat "$hostfile")"; then
		echo "export FIRESTORE_EMULATOR_HOST=$(cat "$hostfile")"
		return
	fi
	running && stop
	command -v java >/dev/null || die "java not found"
	local jar port
	jar=$(find_jar)
	port=${FIRESTORE_EMULATOR_PORT:-}
	if [[ -z $port ]]; then
		for port in $(seq 8681 8780); do port_free "$port" && break; done
	fi
	port_free "$port" || die "port $port is in use"
	local host=127.0.0.1:$port

	local t0=$SECONDS
	# setsid: the emulator leads its own process group, which stop kills.
	# (Without job control the background child is no group leader, so
	# setsid does not fork and $! is the java process.)
	setsid java -Duser.language=en -cp "$jar" \
		com.google.cloud.datastore.emulator.firestore.CloudFirestore start \
		--host=127.0.0.1 --port="$port" --database-mode=firestore-native \
		</dev/null >"$logfile" 2>&1 &
	echo $! >"$pidfile"
	echo "$host" >"$hostfile"

	while ! answers "$host"; do
		if ! running; then
			tail -n 20 "$logfile" >&2 || true
			rm -f "$pidfile" "$hostfile"
			die "the emulator exited; log: $logfile"
		fi
		if ((SECONDS - t0 > wait_s)); then
			tail -n 20 "$logfile" >&2 || true
			stop
			die "the emulator did not answer on $host within ${wait_s}s; log: $logfile"
		fi
		sleep 0.2
	done
	say "pid $(cat "$pidfile") answers on $host after $((SECONDS - t0))s; log: $logfile"
	echo "export FIRESTORE_EMULATOR_HOST=$host"
}

stop() {
	if ! [[ -s $pidfile ]]; then
		say "not running (no $pidfile)"
		return
	fi
	local pid
	pid=$(cat "$pidfile")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
		local i
		for i in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
		fi
		say "stopped pid $pid"
	fi
	rm -f "$pidfile" "$hostfile"
}

case ${1:-} in
start) start ;;
stop) stop ;;
status)
	if running && [[ -s $hostfile ]] && answers "$(cat "$hostfile")"; then
		echo "running: pid $(cat "$pidfile") on $(cat "$hostfile")"
	else
		echo "not running"
		exit 1
	fi
	;;
env)
	running && [[ -s $hostfile ]] || die "not running"
	echo "export FIRESTORE_EMULATOR_HOST=$(cat "$hostfile")"
	;;
*)
	echo "usage: $0 start|stop|status|env" >&2
	exit 2
	;;
esac
