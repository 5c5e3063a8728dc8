//! Whether an IP address is public (F-47, SPEC §12): the one test `fetch_url`, the sandbox's
//! proxy and the pages a server sends the user to all apply, so a name that leads home is
//! refused the same way wherever it is followed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether an address is public unicast: not loopback, private, link-local (where cloud
/// metadata services live), shared (CGNAT), unspecified, broadcast, multicast, documentation,
/// benchmarking or reserved — looking through IPv4-mapped, IPv4-compatible, NAT64 and 6to4
/// forms to the IPv4 address inside.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT), 100.100.100.200 metadata
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local (fd00:ec2::254 metadata)
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x0100 && s[1] == 0 && s[2] == 0 && s[3] == 0)) // discard-only
}

/// The IPv4 address carried inside an IPv6 one, for the forms that route to it.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    match s {
        // IPv4-compatible ::a.b.c.d (deprecated but still routed by some stacks).
        [0, 0, 0, 0, 0, 0, _, _] if !ip.is_loopback() && !ip.is_unspecified() => Some(tail()),
        // NAT64 64:ff9b::a.b.c.d and 64:ff9b:1::/48.
        [0x0064, 0xff9b, 0, 0, 0, 0, _, _] | [0x0064, 0xff9b, 0x0001, _, _, _, _, _] => {
            Some(tail())
        }
        // 6to4 2002:aabb:ccdd::.
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

/// What kind of non-public address `ip` is ("loopback", "private", "link-local (cloud
/// metadata)", …), for messages that say why it was refused: for `fetch_url`, the sandbox's proxy
/// and the pages a server sends the user to, which refuse the same addresses.
pub fn describe(ip: IpAddr) -> &'static str {
    let v4 = match ip {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => embedded_v4(v6),
    };
    match (ip, v4) {
        (_, Some(v4)) if v4.is_loopback() => "loopback",
        (_, Some(v4)) if v4.is_private() => "private",
        (_, Some(v4)) if v4.is_link_local() => "link-local (cloud metadata)",
        (IpAddr::V6(v6), None) if v6.is_loopback() => "loopback",
        (IpAddr::V6(v6), None) if (v6.segments()[0] & 0xffc0) == 0xfe80 => "link-local",
        (IpAddr::V6(v6), None) if (v6.segments()[0] & 0xfe00) == 0xfc00 => "private",
        _ => "non-public",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn only_public_unicast_addresses_are_public() {
        for blocked in [
            "127.0.0.1",
            "127.8.8.8",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.100.100.200",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.0.170",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:0001::1",
            "2002:c0a8:0101::1",
            "ff02::1",
        ] {
            assert!(!is_public(ip(blocked)), "{blocked} must be refused");
        }
        for open in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2002:0808:0808::1",
        ] {
            assert!(is_public(ip(open)), "{open} is public");
        }
    }
}
