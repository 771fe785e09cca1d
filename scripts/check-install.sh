#!/usr/bin/env bash
# The install lines of README.md ("Installing"), run as written against this checkout's HEAD
# commit, each into a temporary place: the tarball a checkout packs installed globally, a
# pinned dev dependency from git, and a directory of its own from git. Then each installed
# doohctl (the bundle package.json's bin names), from a directory outside the checkout, prints
# its help, version, config schema and where its examples are (`doohctl examples`), starts the
# emulator with the packaged seed (--seed demo) and plans the quick start against it. The git URLs are
# git+file:// URLs of this checkout where the README has the GitHub URL; uncommitted changes
# are not in them. Needs the npm registry (the installs fetch the dependencies). `.ci/run` runs
# it after the tests; `npm test` does not.
#
# README does not show `npm install --global git+...`: npm (10.8, 11.19) prepares a global git
# install with npm_config_global=true, so the clone gets no devDependencies and its `prepare`
# build fails, or, when it builds, the install ends as a link to the deleted clone
# (npm/cli#8440, #4148).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse HEAD)
version=$(node -p 'require(process.argv[1]).version' "$root/package.json")
repo="git+file://$root#$commit"
work=$(mktemp -d "${TMPDIR:-/tmp}/doohctl-install-XXXXXX")
emulator_pid=""

cleanup() {
  if [ -n "$emulator_pid" ]; then kill -INT "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
  echo "note: uncommitted changes are not checked: the installs take commit $commit"
fi

# Quiet installs; npm keeps its own config and cache (the installs reuse what it has cached).
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# Each install runs in the background with its own log; a failure prints that log.
pids=()
names=()
start() {
  local name=$1
  shift
  ("$@") >"$work/$name.log" 2>&1 &
  pids+=($!)
  names+=("$name")
}

tarball() {
  # "in a checkout of the tag, `npm pack` writes doohctl-<version>.tgz"
  git clone --quiet --no-checkout "$root" "$work/checkout"
  cd "$work/checkout"
  git checkout --quiet "$commit"
  npm ci && npm pack
  npm_config_prefix="$work/global" npm install --global "./doohctl-$version.tgz"
}

dev_dependency() {
  mkdir -p "$work/campaigns"
  cd "$work/campaigns"
  npm init --yes >/dev/null
  npm install --save-dev "$repo"
}

own_directory() {
  npm install --prefix "$work/own" "$repo"
}

echo "== installing doohctl $version (commit $commit) three ways, in parallel"
start tarball tarball
start dev-dependency dev_dependency
start own-directory own_directory
failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "   ${names[$i]}: installed"
  else
    echo "   ${names[$i]}: FAILED; its log:"
    sed 's/^/     /' "$work/${names[$i]}.log"
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1

# The user's campaigns repository, with doohctl as its dev dependency. No examples/ there: the
# emulator's seed comes from the package (--seed demo), and each smoke has the emulator write the
# quick start placed on the seed's days (--quickstart), as docs/demo.md tells users to: the
# packaged file's dates are the seed's, not today's.
mkdir -p "$work/campaigns/campaigns"
export DOOHCTL_STATE_DIR="$work/state" NO_COLOR=1

# smoke NAME PACKAGE BIN COMMAND...: in the campaigns repository, COMMAND is how the README
# runs doohctl, PACKAGE where it was installed, BIN its bin (the emulator runs from it
# directly: npx does not pass Ctrl-C on).
smoke() {
  local name=$1 package=$2 bin=$3
  shift 3
  local doohctl=("$@")
  echo "== $name"
  cd "$work/campaigns"
  # The bundle holds every package it runs (scripts/bundle.ts), with their licences beside it.
  local main
  main=$(node -p 'require(process.argv[1]).bin.doohctl' "$package/package.json")
  for shipped in LICENSE docs/assumptions.md schemas/doohctl.schema.json examples/emulator-seed.json \
    "$(dirname "$main")/THIRD-PARTY-LICENSES.txt"; do
    if [ ! -f "$package/$shipped" ]; then
      echo "the installed package $package lacks $shipped"
      return 1
    fi
  done
  "${doohctl[@]}" --help >"$work/help.txt"
  if ! grep -q '^Usage: doohctl' "$work/help.txt"; then
    echo "doohctl --help printed no usage:"
    cat "$work/help.txt"
    return 1
  fi
  [ "$("${doohctl[@]}" --version)" = "$version" ]
  # The bin finds the package's files from where it is: the config schema here, the seeds and
  # the DSP contract (read by the plan) below.
  if ! "${doohctl[@]}" schema | cmp -s - "$package/schemas/doohctl.schema.json"; then
    echo "doohctl schema did not print the package's schemas/doohctl.schema.json"
    return 1
  fi
  # README, Installing: `doohctl examples` finds the shipped examples on every route.
  local examples
  examples=$("${doohctl[@]}" examples quickstart)
  if [ "$(realpath "$examples")" != "$(realpath "$package/examples/quickstart")" ]; then
    echo "doohctl examples quickstart printed $examples, not the package's $package/examples/quickstart"
    return 1
  fi

  rm -f "$work/campaigns/campaigns/doohctl.yaml"
  "$bin" emulator --port 0 --seed demo --quickstart campaigns 2>"$work/emulator.err" &
  emulator_pid=$!
  local origin=""
  for _ in $(seq 1 300); do
    origin=$(sed -n 's/^doohctl emulator listening on \(http:[^ ]*\)$/\1/p' "$work/emulator.err")
    [ -n "$origin" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$origin" ]; then
    echo "the emulator did not start:"
    cat "$work/emulator.err"
    return 1
  fi
  local code=0
  DOOHCTL_API_ORIGIN="$origin" DOOHCTL_EMAIL=demo@doohctl.test DOOHCTL_PASSWORD=demo-password \
    "${doohctl[@]}" plan campaigns/ --detailed-exitcode >"$work/plan.txt" 2>"$work/plan.err" || code=$?
  kill -INT "$emulator_pid"
  wait "$emulator_pid" || true
  emulator_pid=""
  if [ "$code" != 2 ] || ! grep -q 'January clearance' "$work/plan.txt"; then
    echo "plan exited $code (2 expected: the quick start's changes):"
    cat "$work/plan.txt" "$work/plan.err"
    return 1
  fi
  echo "   the package's files, --help, --version, schema, examples, the emulator with --seed demo --quickstart, a plan with changes: ok"
}

smoke "global install of the tarball" "$work/global/lib/node_modules/doohctl" "$work/global/bin/doohctl" \
  env PATH="$work/global/bin:$PATH" doohctl
smoke "dev dependency from git" "$work/campaigns/node_modules/doohctl" \
  "$work/campaigns/node_modules/.bin/doohctl" npx doohctl
smoke "directory of its own from git" "$work/own/node_modules/doohctl" "$work/own/node_modules/.bin/doohctl" \
  env PATH="$work/own/node_modules/.bin:$PATH" doohctl
echo "== every install line of README works"
