#!/bin/sh
# Install filebridge as a systemd service (README, "Running as a service"):
#
#   make build && sudo deploy/install.sh bin/filebridge config.toml
#
# It creates the system user and group "filebridge" (unless they exist),
# installs the binary, the unit, the man pages and the shell completions,
# and the config as /etc/filebridge/config.toml, 0640 root:filebridge, so
# that the service's user reads it and nobody else does. An existing
# config is kept. The portal token goes into /etc/filebridge/token, also
# 0640 root:filebridge (the config reads it with token_file = "token").
#
# DESTDIR installs under another root (packaging; the test does): no user
# is created then, and FILEBRIDGE_GROUP names the group (a name or a
# number) that may read the config.
set -eu

bin=${1:-bin/filebridge}
config=${2:-}
root=${DESTDIR:-}
group=${FILEBRIDGE_GROUP:-filebridge}
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -x "$bin" ]; then
	echo "install.sh: $bin is not an executable: run make build first, or name the binary" >&2
	exit 2
fi
if [ -z "$root" ]; then
	getent group "$group" >/dev/null || groupadd --system "$group"
	getent passwd filebridge >/dev/null ||
		useradd --system --gid "$group" --no-create-home --home-dir /var/lib/filebridge \
			--shell /usr/sbin/nologin filebridge
fi

install -D -m 0755 "$bin" "$root/usr/local/bin/filebridge"
install -D -m 0644 "$here/filebridge.service" "$root/etc/systemd/system/filebridge.service"

gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
"$bin" man "$gen"
install -d "$root/usr/local/share/man/man1"
install -m 0644 "$gen"/man1/*.1 "$root/usr/local/share/man/man1/"
install -D -m 0644 "$gen/completion/filebridge.bash" "$root/usr/local/share/bash-completion/completions/filebridge"
install -D -m 0644 "$gen/completion/filebridge.zsh" "$root/usr/local/share/zsh/site-functions/_filebridge"
install -D -m 0644 "$gen/completion/filebridge.fish" "$root/usr/local/share/fish/vendor_completions.d/filebridge.fish"

# The folder is root's and world-traversable; the config readable by the
# service's group only.
install -d -m 0755 "$root/etc/filebridge"
if [ -e "$root/etc/filebridge/config.toml" ]; then
	echo "kept the existing $root/etc/filebridge/config.toml"
elif [ -n "$config" ]; then
	install -m 0640 -g "$group" "$config" "$root/etc/filebridge/config.toml"
else
	install -m 0640 -g "$group" "$here/../config.toml.example" "$root/etc/filebridge/config.toml"
	echo "installed the example as $root/etc/filebridge/config.toml: edit it before starting"
fi

if [ -z "$root" ]; then
	cat <<'NEXT'
Next:
  install -m 0640 -g filebridge /dev/null /etc/filebridge/token
  printf '%s\n' 'THE-PORTAL-TOKEN' > /etc/filebridge/token   # token_file = "token" in the config
  filebridge check --config /etc/filebridge/config.toml
  systemctl daemon-reload && systemctl enable --now filebridge
NEXT
fi
