# Sourced by scripts/gemini-tree.sh and scripts/gemini-imports.sh: the
# Gemini CLI package that scripts/record-agent.sh installs (GEMINI_VERSION,
# default 0.61.0; installed here from npm when missing), the binary to
# compare (PROMPT_INSPECTOR, default target/debug/prompt-inspector) and a
# scratch folder removed on exit. Sets `version`, `cache`, `bin`, `bundle`
# and `work`.
version=${GEMINI_VERSION:-0.61.0}
cache=${PI_AGENT_CACHE:-$HOME/.cache/prompt-inspector-agents}/gemini-$version
bin=${PROMPT_INSPECTOR:-target/debug/prompt-inspector}
bundle=$cache/node_modules/@google/gemini-cli/bundle
if [[ ! -d $bundle ]]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund "@google/gemini-cli@$version" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
