//! The API Pix's answers as the service reads them: charges, Pix received and their refunds, a
//! page of `GET /pix`; and a call's failure.

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// A call's failure.
#[derive(Debug, thiserror::Error)]
pub enum PspError {
    /// Worth trying again: the PSP could not be reached, timed out, throttled or failed (5xx).
    #[error("PSP unavailable: {0}")]
    Unavailable(String),
    /// The PSP refused the call (4xx): trying it again as it is changes nothing.
    #[error("PSP refused ({status}): {detail}")]
    Refused { status: u16, detail: String },
}

impl PspError {
    pub fn status(&self) -> Option<u16> {
        match self {
            PspError::Refused { status, .. } => Some(*status),
            PspError::Unavailable(_) => None,
        }
    }
}

/// A charge with a due date as the PSP answers it.
#[derive(Clone, Debug, Deserialize)]
pub struct Cobv {
    pub txid: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, rename = "pixCopiaECola")]
    pub copy_paste: Option<String>,
    #[serde(default)]
    pub revisao: i64,
    /// The rest of the answer as the PSP wrote it (the terms: `calendario`, `devedor`, `valor`...).
    #[serde(flatten)]
    pub terms: serde_json::Map<String, serde_json::Value>,
}

/// A Pix received, as the PSP lists it (`GET /pix`, `GET /pix/{e2eid}`, the webhook's `pix`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Received {
    #[serde(rename = "endToEndId")]
    pub end_to_end_id: String,
    #[serde(default)]
    pub txid: Option<String>,
    pub valor: String,
    pub horario: DateTime<FixedOffset>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devolucoes: Vec<Refund>,
}

/// A refund (`devolucao`) of a Pix received.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Refund {
    pub id: String,
    #[serde(default, rename = "rtrId")]
    pub rtr_id: Option<String>,
    pub valor: String,
    pub status: String,
}

/// A page of `GET /pix`.
#[derive(Clone, Debug, Deserialize)]
pub struct ReceivedPage {
    pub pix: Vec<Received>,
    #[serde(rename = "parametros")]
    pub parameters: Parameters,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Parameters {
    #[serde(rename = "paginacao")]
    pub paging: Paging,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Paging {
    #[serde(rename = "paginaAtual")]
    pub current: u32,
    #[serde(rename = "quantidadeDePaginas")]
    pub pages: u32,
}

/// The items a page of `GET /pix` asks for.
pub const PAGE_SIZE: u32 = 100;
