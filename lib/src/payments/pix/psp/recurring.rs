//! The API Pix calls of Pix Automático (`payments::pix::automatic`): the recurrence's location
//! (`/locrec`), the recurrence (`/rec`), its charges (`/cobr`, `retentativa`) and the two webhooks
//! (`/webhookrec`, `/webhookcobr`). POST /locrec and the retry take no body (the contract declares
//! none).

use chrono::NaiveDate;
use serde::Deserialize;
use serde_json::Value;

use super::{parse, Psp, PspError};

/// A recurrence's location: its id (given to the recurrence) and URL.
#[derive(Clone, Debug, Deserialize)]
pub struct LocRec {
    pub id: i64,
    pub location: String,
}

/// A recurrence as the PSP has it.
#[derive(Clone, Debug, Deserialize)]
pub struct Rec {
    #[serde(rename = "idRec")]
    pub id: String,
    /// `CRIADA`, `APROVADA`, `REJEITADA`, `EXPIRADA` or `CANCELADA`.
    pub status: String,
    pub vinculo: Vinculo,
    #[serde(rename = "politicaRetentativa", default)]
    pub retry_policy: Option<String>,
    #[serde(rename = "dadosQR", default)]
    pub qr: Option<Qr>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Vinculo {
    pub contrato: String,
}

/// The recurrence's QR code (journey 2: the recurrence alone).
#[derive(Clone, Debug, Deserialize)]
pub struct Qr {
    #[serde(rename = "pixCopiaECola", default)]
    pub copy_paste: Option<String>,
}

/// A recurring charge (`cobr`) as the PSP has it.
#[derive(Clone, Debug, Deserialize)]
pub struct CobR {
    pub txid: String,
    #[serde(rename = "idRec")]
    pub id_rec: String,
    /// `CRIADA`, `ATIVA`, `CONCLUIDA`, `EXPIRADA`, `REJEITADA` or `CANCELADA`.
    pub status: String,
    pub calendario: CobRCalendar,
    #[serde(rename = "politicaRetentativa", default)]
    pub retry_policy: Option<String>,
    #[serde(default)]
    pub tentativas: Vec<Attempt>,
    #[serde(default)]
    pub pix: Vec<Paid>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct CobRCalendar {
    #[serde(rename = "dataDeVencimento")]
    pub due: NaiveDate,
}

/// One attempt to settle a cobr.
#[derive(Clone, Debug, Deserialize)]
pub struct Attempt {
    #[serde(rename = "dataLiquidacao")]
    pub date: NaiveDate,
    /// `SOLICITADA`, `AGENDADA`, `PAGA`, `CANCELADA`, `REJEITADA` or `EXPIRADA`.
    pub status: String,
}

/// A Pix that paid a cobr.
#[derive(Clone, Debug, Deserialize)]
pub struct Paid {
    #[serde(rename = "endToEndId")]
    pub end_to_end_id: String,
}

impl Psp {
    /// `POST /locrec`: a location for a recurrence.
    pub async fn locrec(&self) -> Result<LocRec, PspError> {
        parse(self.call(reqwest::Method::POST, "/locrec", &[], None).await?)
    }

    /// `POST /rec`: the recurrence, waiting for the payer (`CRIADA`).
    pub async fn post_rec(&self, body: &Value) -> Result<Rec, PspError> {
        parse(self.call(reqwest::Method::POST, "/rec", &[], Some(body)).await?)
    }

    /// `GET /rec/{idRec}`.
    pub async fn rec(&self, id: &str) -> Result<Rec, PspError> {
        parse(self.call(reqwest::Method::GET, &format!("/rec/{id}"), &[], None).await?)
    }

    /// `PATCH /rec/{idRec}` `{"status": "CANCELADA"}`: the receiver cancels it.
    pub async fn cancel_rec(&self, id: &str) -> Result<(), PspError> {
        let body = serde_json::json!({ "status": "CANCELADA" });
        self.call(reqwest::Method::PATCH, &format!("/rec/{id}"), &[], Some(&body)).await.map(|_| ())
    }

    /// `PUT /cobr/{txid}`: the cycle's debit.
    pub async fn put_cobr(&self, txid: &str, body: &Value) -> Result<(), PspError> {
        self.call(reqwest::Method::PUT, &format!("/cobr/{txid}"), &[], Some(body)).await.map(|_| ())
    }

    /// `GET /cobr/{txid}`; `None` when the PSP knows none.
    pub async fn cobr(&self, txid: &str) -> Result<Option<CobR>, PspError> {
        match self.call(reqwest::Method::GET, &format!("/cobr/{txid}"), &[], None).await {
            Ok(body) => parse(body).map(Some),
            Err(PspError::Refused { status: 404, .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// `PATCH /cobr/{txid}` `{"status": "CANCELADA"}`.
    pub async fn cancel_cobr(&self, txid: &str) -> Result<(), PspError> {
        let body = serde_json::json!({ "status": "CANCELADA" });
        self.call(reqwest::Method::PATCH, &format!("/cobr/{txid}"), &[], Some(&body)).await.map(|_| ())
    }

    /// `POST /cobr/{txid}/retentativa/{data}`: another attempt on `day`.
    pub async fn retry_cobr(&self, txid: &str, day: NaiveDate) -> Result<(), PspError> {
        self.call(reqwest::Method::POST, &format!("/cobr/{txid}/retentativa/{day}"), &[], None).await.map(|_| ())
    }

    /// `PUT /webhookrec` and `PUT /webhookcobr`: the PSP calls `<url>/rec` and `<url>/cobr`.
    pub async fn register_recurring_webhooks(&self, url: &str) -> Result<(), PspError> {
        let body = serde_json::json!({ "webhookUrl": url });
        for path in ["/webhookrec", "/webhookcobr"] {
            self.call(reqwest::Method::PUT, path, &[], Some(&body)).await?;
        }
        Ok(())
    }
}
