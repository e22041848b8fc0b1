//! `application/x-www-form-urlencoded` (query strings and form bodies), read strictly: a `%` not
//! followed by two hex digits, or bytes that do not decode to UTF-8, make the request a 400, as
//! malformed JSON does. (The WHATWG parser keeps a bad escape literally and turns bad bytes into
//! U+FFFD, so `%G1%` or a Latin-1 `ç` would be stored as something the client never sent.)

use super::error::ApiError;

const MSG_BAD_ESCAPE: &str = "Codificação percentual inválida (um % deve ser seguido de dois dígitos hexadecimais)";
const MSG_NOT_UTF8: &str = "Texto que não é UTF-8 válido";

/// The `name=value` pairs of `input` (`&`-separated; `+` is a space; an empty pair is skipped; a
/// pair without `=` has an empty value).
pub fn decode(input: &[u8]) -> Result<Vec<(String, String)>, ApiError> {
    input
        .split(|b| *b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = match pair.iter().position(|b| *b == b'=') {
                Some(at) => (&pair[..at], &pair[at + 1..]),
                None => (pair, &[][..]),
            };
            Ok((unescape(name)?, unescape(value)?))
        })
        .collect()
}

/// One name or value: `+` → space, `%XX` → that byte, then UTF-8.
fn unescape(part: &[u8]) -> Result<String, ApiError> {
    let mut bytes = Vec::with_capacity(part.len());
    let mut rest = part.iter();
    while let Some(&b) = rest.next() {
        bytes.push(match b {
            b'+' => b' ',
            b'%' => {
                let high = rest.next().and_then(|h| (*h as char).to_digit(16));
                let low = rest.next().and_then(|l| (*l as char).to_digit(16));
                match high.zip(low) {
                    Some((high, low)) => (high * 16 + low) as u8,
                    None => return Err(ApiError::BadRequest(MSG_BAD_ESCAPE)),
                }
            }
            other => other,
        });
    }
    String::from_utf8(bytes).map_err(|_| ApiError::BadRequest(MSG_NOT_UTF8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(input: &str) -> Vec<(String, String)> {
        decode(input.as_bytes()).unwrap()
    }

    #[test]
    fn decodes_pairs_escapes_and_plus() {
        assert_eq!(
            pairs("s=Cl%C3%ADnica+VIP&&flag&tag%5Bname%5D=a%2Bb=c"),
            vec![
                ("s".into(), "Clínica VIP".into()),
                ("flag".into(), String::new()),
                ("tag[name]".into(), "a+b=c".into())
            ]
        );
        assert_eq!(pairs(""), Vec::<(String, String)>::new());
        assert_eq!(pairs("a=%c3%a7%C3%A7"), vec![("a".into(), "çç".into())]);
    }

    #[test]
    fn refuses_bad_escapes_and_bytes_that_are_not_utf8() {
        for bad in ["a=%G1%", "a=%", "a=%4", "a%zz=1", "a=100%"] {
            assert!(matches!(decode(bad.as_bytes()), Err(ApiError::BadRequest(MSG_BAD_ESCAPE))), "{bad}");
        }
        // Latin-1 "ç", escaped or raw.
        assert!(matches!(decode(b"a=%E7"), Err(ApiError::BadRequest(MSG_NOT_UTF8))));
        assert!(matches!(decode(b"a=\xE7"), Err(ApiError::BadRequest(MSG_NOT_UTF8))));
        assert_eq!(pairs("a=%C3%A7"), vec![("a".into(), "ç".into())]);
    }
}
