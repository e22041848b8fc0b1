//! The printable billet: the PDF slip and the Pix QR code alone, read back by
//! independent readers from Debian's packages, as a bank's scanner and a payer's phone would:
//! `pdftoppm` renders the PDF at 300 dpi, `zbarimg` decodes the Interleaved 2 of 5 barcode and the
//! QR code, `rsvg-convert` renders the SVG and `pdftotext` reads the slip's words (`infra/test`
//! installs them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::StatusCode;
use serde_json::Value;

use super::bank_billets::rejected_billing;
use super::billings::{body, setup, Setup};
use super::support::Api;

/// What a GET answered: status, content type, content disposition and the raw bytes.
pub(super) struct Download {
    pub(super) status: StatusCode,
    content_type: String,
    disposition: String,
    pub(super) bytes: Vec<u8>,
}

impl Download {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).expect("a JSON body")
    }
}

pub(super) async fn download(api: &Api, path: &str) -> Download {
    let mut request = api.http.get(api.server.url(path));
    if let Some(auth) = &api.auth {
        request = request.header("Authorization", auth);
    }
    let response = request.send().await.expect("request reaches the dev server");
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let (status, content_type, disposition) =
        (response.status(), header("content-type"), header("content-disposition"));
    let bytes = response.bytes().await.expect("the body").to_vec();
    Download { status, content_type, disposition, bytes }
}

/// A folder of its own under the system's temporary folder, removed when dropped.
pub(super) struct Scratch(PathBuf);

impl Scratch {
    pub(super) fn new() -> Scratch {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("printable-billets-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub(super) fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} did not run ({e}); infra/test installs it (infra/lib.sh ensure_debs)"));
    assert!(output.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// Every symbol `zbarimg` finds in an image, as its data only (no symbology prefix), sorted.
pub(super) fn decode(image: &Path) -> Vec<String> {
    let image = image.to_str().unwrap();
    let text = run("zbarimg", &["--raw", "-q", "-Sdisable", "-Sqrcode.enable", "-Si25.enable", image]);
    let mut symbols: Vec<String> = text.lines().map(str::to_owned).collect();
    symbols.sort();
    symbols
}

/// The page of a one-page PDF at 300 dpi, as a PNG file in `scratch`.
pub(super) fn render_pdf(scratch: &Scratch, pdf: &[u8]) -> PathBuf {
    let (file, prefix) = (scratch.file("boleto.pdf"), scratch.file("page"));
    std::fs::write(&file, pdf).unwrap();
    run("pdftoppm", &["-r", "300", "-png", "-singlefile", file.to_str().unwrap(), prefix.to_str().unwrap()]);
    prefix.with_extension("png")
}

fn pdf_text(scratch: &Scratch, pdf: &[u8]) -> String {
    let file = scratch.file("boleto.pdf");
    std::fs::write(&file, pdf).unwrap();
    run("pdftotext", &["-layout", file.to_str().unwrap(), "-"])
}

/// A billing of the setup's contact, its billet registered by the simulated bank: the billing's
/// id and the billet as shown.
async fn registered(api: &Api, s: &Setup) -> (i64, Value) {
    let id = api.post("/v1/billings", &body(s)).await.expect(201).body["id"].as_i64().unwrap();
    assert_eq!(api.server.register_billets().await, 1);
    let listed = api.get(&format!("/v1/billings/{id}/bank_billets")).await.expect(200).body;
    let billet = listed["bank_billets"][0].clone();
    assert_eq!(billet["status"], "opened", "{billet}");
    (id, billet)
}

#[tokio::test]
async fn the_pdf_reads_back_as_the_billets_own_numbers() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let (id, billet) = registered(&api, &s).await;
    let billet_id = billet["id"].as_i64().unwrap();
    let answer = download(&api, &format!("/v1/billings/{id}/bank_billets/{billet_id}/pdf")).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/pdf");
    assert_eq!(answer.disposition, format!("inline; filename=\"boleto-{billet_id}.pdf\""));
    assert!(answer.bytes.starts_with(b"%PDF-"), "{:?}", &answer.bytes[..16.min(answer.bytes.len())]);

    // The bank's scanner: the barcode is the 44 digits; the payer's phone: the QR is the Pix code.
    let (barcode, pix) = (billet["barcode"].as_str().unwrap(), billet["pix_qr_code"].as_str().unwrap());
    assert_eq!(barcode.len(), 44);
    let mut expected = vec![barcode.to_owned(), pix.to_owned()];
    expected.sort();
    let scratch = Scratch::new();
    assert_eq!(decode(&render_pdf(&scratch, &answer.bytes)), expected);

    // The words: both parts, the digitable line, the snapshots, the terms of the billing.
    let text = pdf_text(&scratch, &answer.bytes);
    let words = [
        "Recibo do Pagador",
        "Ficha de Compensação",
        "999-7",
        billet["digitable_line"].as_str().unwrap(),
        "Conta de teste - CPF/CNPJ 11.222.333/0001-81",
        "Maria da Silva - CPF/CNPJ 529.982.247-25",
        "CEP 01310-100",
        billet["our_number"].as_str().unwrap(),
        "04/03/2030",
        "25,00",
        "Após o vencimento, cobrar multa de 2,00% e juros de 1,00% ao mês.",
        "Pague com Pix",
    ];
    for word in words {
        assert!(text.contains(word), "{word:?} not in the PDF:\n{text}");
    }
}

#[tokio::test]
async fn the_pix_qr_code_alone_as_png_and_svg() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let (id, billet) = registered(&api, &s).await;
    let (billet_id, pix) = (billet["id"].as_i64().unwrap(), billet["pix_qr_code"].as_str().unwrap());

    let png = download(&api, &format!("/v1/billings/{id}/bank_billets/{billet_id}/pix.png")).await;
    assert_eq!((png.status.as_u16(), png.content_type.as_str()), (200, "image/png"));
    assert_eq!(png.disposition, format!("inline; filename=\"pix-{billet_id}.png\""));
    let scratch = Scratch::new();
    let file = scratch.file("pix.png");
    std::fs::write(&file, &png.bytes).unwrap();
    assert_eq!(decode(&file), [pix]);

    let svg = download(&api, &format!("/v1/billings/{id}/bank_billets/{billet_id}/pix.svg")).await;
    assert_eq!((svg.status.as_u16(), svg.content_type.as_str()), (200, "image/svg+xml"));
    assert!(String::from_utf8(svg.bytes.clone()).unwrap().contains("<svg"));
    let (source, rendered) = (scratch.file("pix.svg"), scratch.file("pix-svg.png"));
    std::fs::write(&source, &svg.bytes).unwrap();
    run("rsvg-convert", &["-w", "600", "-b", "white", "-o", rendered.to_str().unwrap(), source.to_str().unwrap()]);
    assert_eq!(decode(&rendered), [pix]);
}

#[tokio::test]
async fn printable_not_found_rules_are_the_billets() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let (id, billet) = registered(&api, &s).await;
    let billet_id = billet["id"].as_i64().unwrap();
    let other = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let foreign = api.other_account().await;
    for part in ["pdf", "pix.png", "pix.svg"] {
        assert_eq!(download(&api, &format!("/v1/billings/{id}/bank_billets/{billet_id}/{part}")).await.status, 200);
        let missing = [
            (&api, format!("/v1/billings/{id}/bank_billets/99999/{part}")),
            (&api, format!("/v1/billings/{other}/bank_billets/{billet_id}/{part}")),
            (&api, format!("/v1/billings/99999/bank_billets/{billet_id}/{part}")),
            (&api, format!("/v1/billings/abc/bank_billets/{billet_id}/{part}")),
            (&foreign, format!("/v1/billings/{id}/bank_billets/{billet_id}/{part}")),
        ];
        for (who, path) in missing {
            let answer = download(who, &path).await;
            assert_eq!(answer.status, 404, "{path}");
            assert_eq!(answer.content_type, "application/json; charset=utf-8", "{path}");
            // The show's own answer, word for word.
            let show = path.rsplit_once('/').unwrap().0;
            assert_eq!(answer.json(), who.get(show).await.expect(404).body, "{path}");
        }
    }
}

#[tokio::test]
async fn a_billet_without_documents_has_nothing_to_print() {
    let api = Api::start().await;
    let s = setup(&api).await;
    // A billet the bank rejected has neither barcode nor Pix code.
    let id = rejected_billing(&api, &s).await;
    let listed = api.get(&format!("/v1/billings/{id}/bank_billets")).await.expect(200).body;
    let billet = &listed["bank_billets"][0];
    assert_eq!(billet["status"], "rejected");
    let base = format!("/v1/billings/{id}/bank_billets/{}", billet["id"]);
    let pdf = download(&api, &format!("{base}/pdf")).await;
    assert_eq!(pdf.status, 404);
    let body = pdf.json();
    assert_eq!((body["status"].as_i64(), body["code"].as_str()), (Some(404), Some("billet_not_printable")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("código de barras"), "{body}");
    for part in ["pix.png", "pix.svg"] {
        let answer = download(&api, &format!("{base}/{part}")).await;
        assert_eq!(answer.status, 404);
        let body = answer.json();
        assert_eq!((body["status"].as_i64(), body["code"].as_str()), (Some(404), Some("billet_without_pix")), "{body}");
        assert!(body["message"].as_str().unwrap().contains("sem código Pix"), "{body}");
    }
}
