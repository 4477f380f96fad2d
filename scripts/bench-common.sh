# Shared by scripts/bench.sh and scripts/ab.sh (sourced, not run).

# start_server NODES PORT LOG: the bench API server with NODES nodes (30 pods each) on
# 127.0.0.1:PORT, logging to LOG; returns once it is ready, its pid in SERVER_PID. Fails,
# with its log, if it stops first.
start_server() {
  local nodes=$1 port=$2 log=$3
  "$PWD/target/release/examples/bench_apiserver" "$nodes" 30 "$port" > "$log" 2>&1 &
  SERVER_PID=$!
  until grep -q ready "$log" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "the bench server stopped:" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 1
  done
}

# write_kubeconfig FILE PORT: a kubeconfig for the bench server on 127.0.0.1:PORT.
write_kubeconfig() {
  cat > "$1" <<KC
apiVersion: v1
kind: Config
clusters: [{name: bench, cluster: {server: "http://127.0.0.1:$2"}}]
contexts: [{name: bench, context: {cluster: bench, user: bench}}]
current-context: bench
users: [{name: bench, user: {token: bench}}]
KC
}
