#!/bin/sh
# Runs in the guest, from the payload disk (/mnt): installs the package and
# sets the lane up as docs/install.md has a technician do it, with the
# answers a script gives. Prints SYSTEST markers on the console. Its caller
# names the guest's serial port the pinsetter is on and the one the
# speaker's recording goes out on (amd64: /dev/ttyS1 /dev/ttyS2; arm64:
# /dev/ttyS0 /dev/ttyS1).
#   sh /mnt/guest-install.sh PINSETTER_PORT CAPTURE_PORT
set -eu
pinsetter_port=${1:?usage: guest-install.sh PINSETTER_PORT CAPTURE_PORT}
capture_port=${2:?usage: guest-install.sh PINSETTER_PORT CAPTURE_PORT}
echo "SYSTEST install: $(ls /mnt/*.deb)"
dpkg -i /mnt/*.deb
# No GPIO in a virtual machine (docs/install.md, "[gpio] backend").
sed -i 's/^backend = "rpi"/backend = "none"/' /etc/lanecall/lanecall.toml
grep -q '^backend = "none"' /etc/lanecall/lanecall.toml

# The speaker: ALSA's loopback card, at every boot. What the lane plays
# on its device 0 is recorded from device 1 and sent to the host on
# $capture_port (8 kHz, 8 bits: well within the port's rate).
echo snd-aloop > /etc/modules-load.d/lane7-loopback.conf
modprobe snd-aloop
sed -i 's/^device = "auto"/device = "plughw:CARD=Loopback,DEV=0"/' /etc/lanecall/lanecall.toml
grep -q '^device = "plughw:CARD=Loopback,DEV=0"' /etc/lanecall/lanecall.toml
# The loopback carries sound only when its capture side is open before
# its playback side, and the side opened first imposes its format,
# rate, channels and buffer on the other: the capture opens the card
# as the lane's output would (float, 48 kHz, stereo, 2048-frame
# periods: arecord asks them in time) and ALSA's plug converts that.
cat > /etc/asound.conf <<'ALSA'
pcm.lane7capture {
    type plug
    slave {
        pcm "hw:CARD=Loopback,DEV=1,SUBDEV=0"
        format FLOAT_LE
        rate 48000
        channels 2
    }
}
ALSA
cat > /etc/systemd/system/lane7-capture.service <<UNIT
[Unit]
Description=The loopback card's capture, sent to the host on $capture_port
After=systemd-modules-load.service sound.target
Before=lanecall.service

[Service]
ExecStart=/bin/sh -c 'stty -F $capture_port raw -echo 115200 && exec arecord -q -D lane7capture --period-time=42667 --buffer-time=170667 -f U8 -r 8000 -c 1 -t raw > $capture_port'
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
UNIT
systemctl enable --now lane7-capture.service

# The PIN from stdin, one line, twice (stdin is not a terminal).
printf '482913\n482913\n' | lanecall setup --lane 7 --port "$pinsetter_port" --language en
echo "SYSTEST setup done"
systemctl is-active lanecall
# This script's own files (the loopback's module, asound.conf, the capture
# unit) on disk before the first power cut: written and not synced, ext4
# may keep them empty through one, and the speaker had no card after it.
# (dpkg and `lanecall setup` sync what they write.)
sync
