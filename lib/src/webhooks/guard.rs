//! Which addresses a delivery may connect to (the SSRF guard).
//!
//! A receiver URL is the account's to choose, so without a guard it could point the sender at
//! the service's own network: the instance metadata endpoint, a VPC neighbour, a loopback admin
//! port. A delivery connects only to public unicast addresses. The check is made on the address
//! actually connected to: the HTTP client resolves names through [`super::client`]'s resolver,
//! which hands the connector only the addresses that pass, so a name that resolves to a public
//! address when the URL is registered and to a private one when it is sent (DNS rebinding) is
//! refused too. IP literals in the URL, which skip resolution, are checked before sending.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is no place to deliver to, or `None` when it is a public unicast address. With
/// `allow_loopback` (the local-only switch), loopback addresses pass.
pub fn refusal(ip: IpAddr, allow_loopback: bool) -> Option<&'static str> {
    let reason = match ip {
        IpAddr::V4(v4) => v4_refusal(v4),
        IpAddr::V6(v6) => v6_refusal(v6),
    };
    match reason {
        Some("loopback") if allow_loopback => None,
        other => other,
    }
}

fn v4_refusal(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(match (a, b) {
        _ if ip.is_unspecified() => "unspecified",
        (0, _) => "this network (0.0.0.0/8)",
        (127, _) => "loopback",
        (10, _) | (192, 168) => "private (RFC 1918)",
        (172, 16..=31) => "private (RFC 1918)",
        (169, 254) => "link-local (169.254.0.0/16, cloud metadata)",
        (100, 64..=127) => "shared address space (CGNAT, 100.64.0.0/10)",
        (224..=239, _) => "multicast",
        _ if ip.is_broadcast() => "broadcast",
        (240..=255, _) => "reserved (240.0.0.0/4)",
        _ => return None,
    })
}

fn v6_refusal(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_refusal(v4);
    }
    Some(match segments[0] {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        0xff00..=0xffff => "multicast",
        0xfc00..=0xfdff => "unique local (fc00::/7)",
        0xfe80..=0xfebf => "link-local (fe80::/10)",
        0xfec0..=0xfeff => "site-local (fec0::/10)",
        // Addresses that carry an IPv4 address: judged by it.
        0x0064 if segments[1] == 0xff9b => return v4_refusal(embedded_v4(&ip.octets()[12..16])),
        0x2002 => return v4_refusal(embedded_v4(&ip.octets()[2..6])),
        0 if segments[..6] == [0; 6] => return v4_refusal(embedded_v4(&ip.octets()[12..16])),
        _ => return None,
    })
}

fn embedded_v4(octets: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(octets[0], octets[1], octets[2], octets[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(text: &str) -> Option<&'static str> {
        refusal(text.parse().unwrap(), false)
    }

    #[test]
    fn every_non_public_range_is_refused() {
        for (address, reason) in [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.0.10", "private"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "CGNAT"),
            ("100.127.255.254", "CGNAT"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "this network"),
            ("255.255.255.255", "broadcast"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fd00::1", "unique local"),
            ("fc00::1", "unique local"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "link-local"),
            ("::ffff:10.0.0.1", "private"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
            ("2002:c0a8:0001::1", "private"),
            ("::10.0.0.1", "private"),
        ] {
            let found = judged(address).unwrap_or_else(|| panic!("{address} passed"));
            assert!(found.contains(reason), "{address}: {found}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for address in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "2001:4860::8888",
        ] {
            assert_eq!(judged(address), None, "{address}");
        }
    }

    #[test]
    fn the_local_switch_lets_loopback_through_and_nothing_else() {
        assert_eq!(refusal("127.0.0.1".parse().unwrap(), true), None);
        assert_eq!(refusal("::1".parse().unwrap(), true), None);
        assert!(refusal("10.0.0.1".parse().unwrap(), true).is_some());
        assert!(refusal("169.254.169.254".parse().unwrap(), true).is_some());
    }
}
