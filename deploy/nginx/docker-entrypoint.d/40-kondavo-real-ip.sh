#!/bin/sh
# Writes conf.d/kondavo-real-ip.conf from KONDAVO_EDGE_TRUSTED_PROXIES (comma-separated IPs
# and CIDRs of the operator's own load balancers in front of the edge; empty: none). Run by
# the nginx image's entrypoint before nginx starts (after the templates are rendered).
# From those peers only, the edge takes the client address from X-Forwarded-For (walked from
# the right, skipping trusted hops) and the scheme from X-Forwarded-Proto; from anyone else
# both headers are ignored, and the edge overwrites them towards the Daphnes.
set -eu
out="${KONDAVO_REAL_IP_CONF:-/etc/nginx/conf.d/kondavo-real-ip.conf}"
trusted="${KONDAVO_EDGE_TRUSTED_PROXIES:-}"
{
    echo "# Written by 40-kondavo-real-ip.sh from KONDAVO_EDGE_TRUSTED_PROXIES=\"$trusted\""
    echo "real_ip_header X-Forwarded-For;"
    echo "real_ip_recursive on;"
    for item in $(echo "$trusted" | tr ',' ' '); do
        case "$item" in
            *[!0-9A-Fa-f.:/]*)
                echo "40-kondavo-real-ip.sh: '$item' is not an IP address or CIDR" >&2
                exit 1 ;;
        esac
        echo "set_real_ip_from $item;"
    done
    echo "geo \$realip_remote_addr \$kondavo_from_trusted_proxy {"
    echo "    default 0;"
    for item in $(echo "$trusted" | tr ',' ' '); do
        echo "    $item 1;"
    done
    echo "}"
} > "$out.tmp"
mv "$out.tmp" "$out"
