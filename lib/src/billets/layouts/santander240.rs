//! Santander's collection files, CNAB 240 ("Layout de Arquivos – Padrão FEBRABAN 240 posições",
//! Santander, file layout 040, batch 030), as data ([`crate::billets::layout`]): Santander departs
//! from FEBRABAN in its headers (the código de transmissão), segment P (agency 4 digits, account and
//! collection account of 9, our number of 13 with its digit), segment Q (its carnê fields) and its
//! return's T; segment R, the trailers and U are FEBRABAN's ([`super::febraban240`]).

use super::febraban240 as febraban;
use super::Cnab240;
use crate::billets::layout::Kind::{A, N};
use crate::billets::layout::Source::{Blanks, Fixed, Unread, Value, Zeros};
use crate::billets::layout::{field, Record};

/// Record 0: the file header.
pub const FILE_HEADER: Record = Record {
    name: "Santander 240 header de arquivo",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("033"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0000"), "lote de serviço"),
        field(8, 8, N, Fixed("0"), "tipo de registro"),
        field(9, 16, A, Blanks, "reservado (uso banco)"),
        field(17, 17, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(18, 32, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(33, 47, N, Value("transmission"), "código de transmissão"),
        field(48, 72, A, Blanks, "reservado (uso banco)"),
        field(73, 102, A, Value("beneficiary_name"), "nome da empresa"),
        field(103, 132, A, Fixed("BANCO SANTANDER"), "nome do banco"),
        field(133, 142, A, Blanks, "reservado (uso banco)"),
        field(143, 143, N, Fixed("1"), "código remessa"),
        field(144, 151, N, Value("file_date"), "data de geração do arquivo"),
        field(152, 157, A, Blanks, "reservado (uso banco)"),
        field(158, 163, N, Value("sequence"), "número sequencial do arquivo"),
        field(164, 166, N, Fixed("040"), "número da versão do layout do arquivo"),
        field(167, 240, A, Blanks, "reservado (uso banco)"),
    ],
};

/// Record 1: the batch header.
pub const BATCH_HEADER: Record = Record {
    name: "Santander 240 header de lote",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("033"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "número do lote remessa"),
        field(8, 8, N, Fixed("1"), "tipo de registro"),
        field(9, 9, A, Fixed("R"), "tipo de operação"),
        field(10, 11, N, Fixed("01"), "tipo de serviço"),
        field(12, 13, A, Blanks, "reservado (uso banco)"),
        field(14, 16, N, Fixed("030"), "número da versão do layout do lote"),
        field(17, 17, A, Blanks, "reservado (uso banco)"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 33, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(34, 53, A, Blanks, "reservado (uso banco)"),
        field(54, 68, N, Value("transmission"), "código de transmissão"),
        field(69, 73, A, Blanks, "reservado (uso banco)"),
        field(74, 103, A, Value("beneficiary_name"), "nome do beneficiário"),
        field(104, 143, A, Blanks, "mensagem 1"),
        field(144, 183, A, Blanks, "mensagem 2"),
        field(184, 191, N, Value("sequence"), "número remessa/retorno"),
        field(192, 199, N, Value("file_date"), "data da gravação remessa/retorno"),
        field(200, 240, A, Blanks, "reservado (uso banco)"),
    ],
};

/// Segment P: the title.
pub const SEGMENT_P: Record = Record {
    name: "Santander 240 segmento P",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("033"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "número do lote remessa"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número sequencial do registro no lote"),
        field(14, 14, A, Fixed("P"), "código do segmento"),
        field(15, 15, A, Blanks, "reservado (uso banco)"),
        field(16, 17, N, Value("movement"), "código de movimento remessa"),
        field(18, 21, N, Value("agency"), "agência do destinatário"),
        field(22, 22, N, Value("agency_dv"), "dígito da agência do destinatário"),
        field(23, 31, N, Value("account"), "número da conta corrente"),
        field(32, 32, N, Value("account_dv"), "dígito verificador da conta"),
        field(33, 41, N, Value("account"), "conta cobrança destinatária"),
        field(42, 42, N, Value("account_dv"), "dígito da conta cobrança"),
        field(43, 44, A, Blanks, "reservado (uso banco)"),
        field(45, 57, N, Value("title_id"), "identificação do título no banco (nosso número)"),
        field(58, 58, N, Value("carteira_code"), "tipo de cobrança"),
        field(59, 59, N, Fixed("1"), "forma de cadastramento"),
        field(60, 60, N, Fixed("1"), "tipo de documento"),
        field(61, 61, A, Blanks, "reservado (uso banco)"),
        field(62, 62, A, Blanks, "reservado (uso banco)"),
        field(63, 77, A, Value("document_number"), "número do documento"),
        field(78, 85, N, Value("due_date"), "data de vencimento do título"),
        field(86, 100, N, Value("amount"), "valor nominal do título"),
        field(101, 104, N, Zeros, "agência encarregada da cobrança"),
        field(105, 105, N, Zeros, "dígito da agência do beneficiário"),
        field(106, 106, A, Blanks, "reservado (uso banco)"),
        field(107, 108, N, Fixed("02"), "espécie do título (duplicata mercantil)"),
        field(109, 109, A, Fixed("N"), "identificação de título aceito/não aceito"),
        field(110, 117, N, Value("issued_on"), "data da emissão do título"),
        field(118, 118, N, Value("interest_code"), "código do juros de mora"),
        field(119, 126, N, Value("interest_date"), "data do juros de mora"),
        field(127, 141, N, Value("interest_per_day"), "valor da mora/dia"),
        field(142, 142, N, Zeros, "código do desconto 1"),
        field(143, 150, N, Zeros, "data de desconto 1"),
        field(151, 165, N, Zeros, "valor do desconto 1"),
        field(166, 180, N, Zeros, "valor do IOF a ser recolhido"),
        field(181, 195, N, Zeros, "valor do abatimento"),
        field(196, 220, A, Value("reference"), "identificação do título na empresa"),
        field(221, 221, N, Fixed("0"), "código para protesto (não protestar)"),
        field(222, 223, N, Zeros, "número de dias para protesto"),
        field(224, 224, N, Fixed("3"), "código para baixa/devolução (perfil do beneficiário)"),
        field(225, 225, N, Zeros, "reservado (uso banco)"),
        field(226, 227, N, Zeros, "número de dias para baixa/devolução"),
        field(228, 229, N, Fixed("09"), "código da moeda (real)"),
        field(230, 240, A, Blanks, "reservado (uso banco)"),
    ],
};

/// Segment Q: who pays (FEBRABAN's but for the carnê fields at 210–221).
pub const SEGMENT_Q: Record = Record {
    name: "Santander 240 segmento Q",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("033"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "número do lote remessa"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número sequencial do registro no lote"),
        field(14, 14, A, Fixed("Q"), "código do segmento"),
        field(15, 15, A, Blanks, "reservado (uso banco)"),
        field(16, 17, N, Value("movement"), "código de movimento remessa"),
        field(18, 18, N, Value("payer_kind"), "tipo de inscrição do pagador"),
        field(19, 33, N, Value("payer_document"), "número de inscrição do pagador"),
        field(34, 73, A, Value("payer_name"), "nome do pagador"),
        field(74, 113, A, Value("payer_street"), "endereço do pagador"),
        field(114, 128, A, Value("payer_district"), "bairro do pagador"),
        field(129, 136, N, Value("payer_postal_code"), "CEP e sufixo do CEP do pagador"),
        field(137, 151, A, Value("payer_city"), "cidade do pagador"),
        field(152, 153, A, Value("payer_state"), "unidade da federação do pagador"),
        field(154, 154, N, Zeros, "tipo de inscrição do sacador/avalista"),
        field(155, 169, N, Zeros, "número de inscrição do sacador/avalista"),
        field(170, 209, A, Blanks, "nome do sacador/avalista"),
        field(210, 212, N, Zeros, "identificador de carnê"),
        field(213, 215, N, Zeros, "sequencial da parcela"),
        field(216, 218, N, Zeros, "quantidade total de parcelas"),
        field(219, 221, N, Zeros, "número do plano"),
        field(222, 240, A, Blanks, "reservado (uso banco)"),
    ],
};

/// Segment T of a return.
pub const SEGMENT_T: Record = Record {
    name: "Santander 240 segmento T (retorno)",
    width: 240,
    fields: &[
        field(1, 7, N, Unread, "banco e lote"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Unread, "número do registro no lote"),
        field(14, 14, A, Fixed("T"), "código do segmento"),
        field(15, 15, A, Unread, "reservado (uso banco)"),
        field(16, 17, N, Value("movement"), "código de movimento"),
        field(18, 40, A, Unread, "agência, conta e reservado"),
        field(41, 53, N, Value("our_number"), "identificação do título no banco (nosso número)"),
        field(54, 54, A, Unread, "código da carteira"),
        field(55, 69, A, Value("document_number"), "número do documento de cobrança"),
        field(70, 77, N, Value("due_date"), "data do vencimento do título"),
        field(78, 92, N, Value("amount"), "valor nominal do título"),
        field(93, 100, A, Unread, "banco e agência cobradora/recebedora"),
        field(101, 125, A, Value("reference"), "identificação do título na empresa"),
        field(126, 193, A, Unread, "moeda, pagador e conta cobrança"),
        field(194, 208, N, Value("fee"), "valor da tarifa/custas"),
        field(209, 218, A, Value("reasons"), "identificação para rejeições, tarifas, custas, liquidação e baixas"),
        field(219, 240, A, Unread, "reservado (uso banco)"),
    ],
};

/// The layout.
pub const LAYOUT: Cnab240 = Cnab240 {
    file_header: &FILE_HEADER,
    batch_header: &BATCH_HEADER,
    segments: &[&SEGMENT_P, &SEGMENT_Q, &febraban::SEGMENT_R],
    batch_trailer: &febraban::BATCH_TRAILER,
    file_trailer: &febraban::FILE_TRAILER,
    segment_t: &SEGMENT_T,
    segment_u: &febraban::SEGMENT_U,
};
