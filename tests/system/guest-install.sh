#!/bin/sh
# Runs in the guest, from the payload disk (/mnt): installs the package and
# sets the lane up as docs/install.md has a technician do it, with the
# answers a script gives. Prints SYSTEST markers on the console.
#   sh /mnt/guest-install.sh [sound]
set -eu
echo "SYSTEST install: $(ls /mnt/*.deb)"
dpkg -i /mnt/*.deb
# No GPIO in a virtual machine (docs/install.md, "[gpio] backend").
sed -i 's/^backend = "rpi"/backend = "none"/' /etc/lanecall/lanecall.toml
grep -q '^backend = "none"' /etc/lanecall/lanecall.toml

if [ "${1:-}" = sound ]; then
    # The speaker: ALSA's loopback card, at every boot. What the lane plays
    # on its device 0 is recorded from device 1 and sent to the host on
    # ttyS2 (8 kHz, 8 bits: well within the port's rate).
    echo snd-aloop > /etc/modules-load.d/lane7-loopback.conf
    modprobe snd-aloop
    sed -i 's/^device = "default"/device = "plughw:CARD=Loopback,DEV=0"/' /etc/lanecall/lanecall.toml
    grep -q '^device = "plughw:CARD=Loopback,DEV=0"' /etc/lanecall/lanecall.toml
    cat > /etc/systemd/system/lane7-capture.service <<'UNIT'
[Unit]
Description=The loopback card's capture, sent to the host on ttyS2
After=systemd-modules-load.service sound.target lanecall.service

[Service]
# The lane opens the card first and so chooses its format: a capture
# opened first would impose its own on the lane's output.
ExecStartPre=/bin/sh -c 'for i in $$(seq 240); do grep -q "^state" /proc/asound/Loopback/pcm0p/sub0/status && exit 0; sleep 0.5; done; exit 1'
ExecStart=/bin/sh -c 'stty -F /dev/ttyS2 raw -echo 115200 && exec arecord -q -D plughw:CARD=Loopback,DEV=1 -f U8 -r 8000 -c 1 -t raw > /dev/ttyS2'
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
UNIT
    systemctl enable lane7-capture.service
fi

# The PIN from stdin, one line, twice (stdin is not a terminal).
printf '482913\n482913\n' | lanecall setup --lane 7 --port /dev/ttyS1 --language en
echo "SYSTEST setup done"
systemctl is-active lanecall
if [ "${1:-}" = sound ]; then
    systemctl start lane7-capture.service
    systemctl is-active lane7-capture.service
fi
