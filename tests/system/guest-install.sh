#!/bin/sh
# Runs in the guest, from the payload disk (/mnt): installs the package and
# sets the lane up as docs/install.md has a technician do it, with the
# answers a script gives. Prints SYSTEST markers on the console.
set -eu
echo "SYSTEST install: $(ls /mnt/*.deb)"
dpkg -i /mnt/*.deb
# No GPIO in a virtual machine (docs/install.md, "[gpio] backend").
sed -i 's/^backend = "rpi"/backend = "none"/' /etc/lanecall/lanecall.toml
grep -q '^backend = "none"' /etc/lanecall/lanecall.toml
# The PIN from stdin, one line, twice (stdin is not a terminal).
printf '482913\n482913\n' | lanecall setup --lane 7 --port /dev/ttyS1 --language en
echo "SYSTEST setup done"
systemctl is-active lanecall
