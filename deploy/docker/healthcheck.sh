#!/bin/bash
# The image's HEALTHCHECK: GET /health on the admin port ($CACHEGATE_ADMIN_PORT, loopback) with bash's
# /dev/tcp, so the runtime image needs neither curl nor wget. Exit 0 on HTTP 200, else 1.
port="${CACHEGATE_ADMIN_PORT:-8081}"
exec 3<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null || exit 1
printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
status=""
read -r -t 2 status <&3 || exit 1
exec 3<&- 3>&-
case "$status" in
  "HTTP/1."?" 200"*) exit 0 ;;
  *) exit 1 ;;
esac
