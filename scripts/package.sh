#!/usr/bin/env bash
# Builds the packages a user installs without a Rust toolchain:
#   dist/prompt-inspector-VERSION-TARGET.tar.gz   the binary, manual pages,
#       completions, desktop entry, icons, metainfo, examples, LICENSE
#   dist/prompt-inspector_VERSION_ARCH.deb        the same, installed under /usr
#
#   bash scripts/package.sh                 # cargo build --release --locked first
#   bash scripts/package.sh --binary PATH   # package a binary already built
#   bash scripts/package.sh --out DIR       # somewhere else than dist/
#
# Needs dpkg-deb (Debian's dpkg) for the .deb, gzip and tar; nothing else.
# Everything in them comes from this tree or from the binary itself (its
# manual pages, its completions): the files are written here, never fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

binary=""
out=$repo/dist
while [[ $# -gt 0 ]]; do
  case $1 in
    --binary) binary=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--binary PATH] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [[ -z $binary ]]; then
  cargo build --release --locked
  binary=$repo/target/release/prompt-inspector
fi
[[ -x $binary ]] || { echo "package: $binary is not an executable" >&2; exit 1; }
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
target=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
[[ -n $target ]] || target=$(uname -m)-unknown-linux-gnu
"$binary" --version | grep -q "$version" \
  || { echo "package: $binary does not say version $version" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# install_tree ROOT BIN_DIR SHARE_DIR DOC_DIR: the files at their places.
install_tree() {
  local root=$1 bin=$1/$2 share=$1/$3 doc=$1/$4 size cmd
  install -d "$bin" "$share/applications" "$share/metainfo" "$share/man/man1" \
    "$share/bash-completion/completions" "$share/zsh/vendor-completions" \
    "$share/fish/vendor_completions.d" "$share/icons/hicolor/scalable/apps" "$doc"
  install -m 0755 "$binary" "$bin/prompt-inspector"
  strip --strip-unneeded "$bin/prompt-inspector" 2>/dev/null || true
  install -m 0644 packaging/prompt-inspector.desktop "$share/applications/"
  install -m 0644 packaging/io.github.prompt_inspector.metainfo.xml "$share/metainfo/"
  install -m 0644 packaging/icons/prompt-inspector.svg "$share/icons/hicolor/scalable/apps/"
  for size in 16 32 48 64 128 256 512; do
    install -d "$share/icons/hicolor/${size}x$size/apps"
    install -m 0644 "packaging/icons/prompt-inspector-$size.png" \
      "$share/icons/hicolor/${size}x$size/apps/prompt-inspector.png"
  done
  # The manual pages, from the binary: the tool's and one per command.
  "$binary" man | gzip -9n > "$share/man/man1/prompt-inspector.1.gz"
  for cmd in $("$binary" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}'); do
    [[ $cmd == help ]] && continue
    "$binary" man "$cmd" | gzip -9n > "$share/man/man1/prompt-inspector-$cmd.1.gz"
  done
  "$binary" completions bash > "$share/bash-completion/completions/prompt-inspector"
  "$binary" completions zsh > "$share/zsh/vendor-completions/_prompt-inspector"
  "$binary" completions fish > "$share/fish/vendor_completions.d/prompt-inspector.fish"
  install -m 0644 README.md CHANGELOG.md "$doc/"
  install -m 0644 LICENSE "$doc/copyright"
  "$binary" examples --copy "$doc/examples" >/dev/null
  find "$root" -type d -exec chmod 0755 {} +
  find "$root" -type f ! -path "*/bin/*" -exec chmod 0644 {} +
}

# ------------------------------------------------------------------ archive
name=prompt-inspector-$version-$target
install_tree "$stage/$name" bin share share/doc/prompt-inspector
cp LICENSE README.md "$stage/$name/"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
  -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz"

# ------------------------------------------------------------------ .deb
if command -v dpkg-deb >/dev/null 2>&1; then
  arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
  deb=$stage/deb
  install_tree "$deb" usr/bin usr/share usr/share/doc/prompt-inspector
  install -d "$deb/DEBIAN"
  size=$(du -sk --exclude=DEBIAN "$deb" | cut -f1)
  cat > "$deb/DEBIAN/control" <<CONTROL
Package: prompt-inspector
Version: $version
Architecture: $arch
Maintainer: the prompt-inspector authors <prompt-inspector@users.noreply.github.com>
Installed-Size: $size
Depends: libc6 (>= 2.34), libgcc-s1
Recommends: libgl1, libegl1, libxkbcommon0, libxcursor1, libxrandr2, libxi6, libwayland-client0
Section: devel
Priority: optional
Description: see what your LLM agent sends and why its cache missed
 An agent's prompt is assembled at run time from files (persona, rules,
 skills, tools, memory) into system blocks under a token budget, with
 prompt-cache breakpoints. prompt-inspector shows that assembly, records the
 agent's real requests through a local proxy or reads its transcripts,
 names the cause and the cost of every cache miss, and diffs prompts
 between sessions. A native window and a command line, one binary.
CONTROL
  dpkg-deb --root-owner-group -Zxz --build "$deb" "$out/prompt-inspector_${version}_$arch.deb" >/dev/null
  echo "$out/prompt-inspector_${version}_$arch.deb"
else
  echo "package: dpkg-deb not found, no .deb (apt-get install dpkg)" >&2
fi
