//! Check digits the banks' manuals compute, and the shape checks of their agreements.

/// Digits only, `n` of them.
pub fn exactly(text: &str, n: usize) -> bool {
    text.len() == n && text.bytes().all(|b| b.is_ascii_digit())
}

/// Digits only, 1 to `n` of them.
pub fn up_to(text: &str, n: usize) -> bool {
    (1..=n).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

/// Modulo 10: weights 2, 1, 2, … from the rightmost digit, the digits of each product summed;
/// `(10 - sum mod 10) mod 10`. `None` for anything but digits.
pub fn mod10(digits: &str) -> Option<u32> {
    let mut sum = 0;
    for (n, c) in digits.chars().rev().enumerate() {
        let product = c.to_digit(10)? * if n % 2 == 0 { 2 } else { 1 };
        sum += product / 10 + product % 10;
    }
    Some((10 - sum % 10) % 10)
}

/// The weighted sum of modulo 11: weights 2, 3, … up to `top`, then 2 again, from the rightmost
/// digit. `None` for anything but digits.
pub fn mod11_sum(digits: &str, top: u32) -> Option<u32> {
    let mut sum = 0;
    let mut weight = 2;
    for c in digits.chars().rev() {
        sum += c.to_digit(10)? * weight;
        weight = if weight == top { 2 } else { weight + 1 };
    }
    Some(sum)
}

/// Modulo 11 with weights 2..=`top` from the right: `11 - sum mod 11`, where 10 and 11 give `zero`
/// (0 at most banks).
pub fn mod11(digits: &str, top: u32, zero: u32) -> Option<u32> {
    let rest = mod11_sum(digits, top)? % 11;
    Some(match 11 - rest {
        10 | 11 => zero,
        digit => digit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manuals_worked_examples() {
        // Itaú: agency 0057, account 12345.
        assert_eq!(mod10("005712345"), Some(7));
        assert_eq!(mod10("9"), Some(1), "9·2 = 18 → 1 + 8 = 9 → 1");
        assert_eq!(mod10("12a"), None);
        // 0·… weights 2..9: 1·9 + 2·8 + … of "12345678": 4+... (checked by hand: sum 164, 164 mod 11 = 10).
        assert_eq!(mod11_sum("12345678", 9), Some(8 * 2 + 7 * 3 + 6 * 4 + 5 * 5 + 4 * 6 + 3 * 7 + 2 * 8 + 9));
        assert_eq!(mod11("12345678", 9, 0), Some(11 - (mod11_sum("12345678", 9).unwrap() % 11)));
        assert!(exactly("0123", 4) && !exactly("012a", 4) && up_to("1", 7) && !up_to("", 7));
    }
}
