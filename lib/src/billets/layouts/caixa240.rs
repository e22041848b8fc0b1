//! Caixa's collection files, CNAB 240 (SIGCB, "Leiaute de Arquivo Eletrônico Padrão CNAB 240 –
//! Cobrança Bancária CAIXA"), as data ([`crate::billets::layout`]): Caixa departs from FEBRABAN in
//! its headers (the código do beneficiário of 6 digits where FEBRABAN has the account), segment P
//! (the beneficiary's code, modalidade and our number of 15) and its return's T; segments Q and R,
//! the trailers and U are FEBRABAN's ([`super::febraban240`]). Layout versions as `cnab_yaml`'s
//! SIGCB layout has them (file 050, batch 030).

use super::febraban240 as febraban;
use super::Cnab240;
use crate::billets::layout::Kind::{A, N};
use crate::billets::layout::Source::{Blanks, Fixed, Unread, Value, Zeros};
use crate::billets::layout::{field, Record};

/// Record 0: the file header.
pub const FILE_HEADER: Record = Record {
    name: "Caixa 240 header de arquivo",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("104"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0000"), "lote de serviço"),
        field(8, 8, N, Fixed("0"), "tipo de registro"),
        field(9, 17, A, Blanks, "uso exclusivo FEBRABAN"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 32, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(33, 52, N, Zeros, "uso exclusivo CAIXA"),
        field(53, 57, N, Value("agency"), "agência mantenedora da conta"),
        field(58, 58, N, Value("agency_dv"), "dígito verificador da agência"),
        field(59, 64, N, Value("convenio"), "código do beneficiário"),
        field(65, 71, N, Zeros, "uso exclusivo CAIXA"),
        field(72, 72, N, Zeros, "uso exclusivo CAIXA"),
        field(73, 102, A, Value("beneficiary_name"), "nome da empresa"),
        field(103, 132, A, Fixed("CAIXA ECONOMICA FEDERAL"), "nome do banco"),
        field(133, 142, A, Blanks, "uso exclusivo FEBRABAN"),
        field(143, 143, N, Fixed("1"), "código remessa"),
        field(144, 151, N, Value("file_date"), "data de geração do arquivo"),
        field(152, 157, N, Value("file_time"), "hora de geração do arquivo"),
        field(158, 163, N, Value("sequence"), "número sequencial do arquivo"),
        field(164, 166, N, Fixed("050"), "número da versão do layout do arquivo"),
        field(167, 171, N, Zeros, "densidade de gravação do arquivo"),
        field(172, 191, A, Blanks, "para uso reservado do banco"),
        field(192, 211, A, Fixed("REMESSA-PRODUCAO"), "para uso reservado da empresa"),
        field(212, 215, A, Blanks, "versão do aplicativo CAIXA"),
        field(216, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Record 1: the batch header.
pub const BATCH_HEADER: Record = Record {
    name: "Caixa 240 header de lote",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("104"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("1"), "tipo de registro"),
        field(9, 9, A, Fixed("R"), "tipo de operação"),
        field(10, 11, N, Fixed("01"), "tipo de serviço"),
        field(12, 13, N, Zeros, "uso exclusivo FEBRABAN"),
        field(14, 16, N, Fixed("030"), "número da versão do layout do lote"),
        field(17, 17, A, Blanks, "uso exclusivo FEBRABAN"),
        field(18, 18, N, Value("beneficiary_kind"), "tipo de inscrição da empresa"),
        field(19, 33, N, Value("beneficiary_document"), "número de inscrição da empresa"),
        field(34, 39, N, Value("convenio"), "código do convênio no banco"),
        field(40, 53, N, Zeros, "uso exclusivo CAIXA"),
        field(54, 58, N, Value("agency"), "agência mantenedora da conta"),
        field(59, 59, N, Value("agency_dv"), "dígito verificador da agência"),
        field(60, 65, N, Value("convenio"), "código do beneficiário"),
        field(66, 72, N, Zeros, "código do modelo personalizado"),
        field(73, 73, N, Zeros, "uso exclusivo CAIXA"),
        field(74, 103, A, Value("beneficiary_name"), "nome da empresa"),
        field(104, 143, A, Blanks, "mensagem 1"),
        field(144, 183, A, Blanks, "mensagem 2"),
        field(184, 191, N, Value("sequence"), "número remessa/retorno"),
        field(192, 199, N, Value("file_date"), "data de gravação remessa/retorno"),
        field(200, 207, N, Zeros, "data do crédito"),
        field(208, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Segment P: the title.
pub const SEGMENT_P: Record = Record {
    name: "Caixa 240 segmento P",
    width: 240,
    fields: &[
        field(1, 3, N, Fixed("104"), "código do banco na compensação"),
        field(4, 7, N, Fixed("0001"), "lote de serviço"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Value("record"), "número sequencial do registro no lote"),
        field(14, 14, A, Fixed("P"), "código do segmento"),
        field(15, 15, A, Blanks, "uso exclusivo FEBRABAN"),
        field(16, 17, N, Value("movement"), "código de movimento remessa"),
        field(18, 22, N, Value("agency"), "agência mantenedora da conta"),
        field(23, 23, N, Value("agency_dv"), "dígito verificador da agência"),
        field(24, 29, N, Value("convenio"), "código do beneficiário"),
        field(30, 37, N, Zeros, "uso exclusivo CAIXA"),
        field(38, 40, N, Zeros, "uso exclusivo CAIXA"),
        field(41, 42, N, Fixed("14"), "modalidade da carteira (registrada, emissão do beneficiário)"),
        field(43, 57, N, Value("our_number"), "identificação do título no banco (nosso número)"),
        field(58, 58, N, Fixed("1"), "código da carteira (cobrança simples)"),
        field(59, 59, N, Fixed("1"), "forma de cadastramento do título no banco"),
        field(60, 60, A, Fixed("2"), "tipo de documento (escritural)"),
        field(61, 61, N, Fixed("2"), "identificação da emissão do boleto (beneficiário emite)"),
        field(62, 62, A, Fixed("0"), "identificação da entrega do boleto (postagem pelo beneficiário)"),
        field(63, 73, A, Value("document_number"), "número do documento de cobrança"),
        field(74, 77, A, Blanks, "uso exclusivo CAIXA"),
        field(78, 85, N, Value("due_date"), "data de vencimento do título"),
        field(86, 100, N, Value("amount"), "valor nominal do título"),
        field(101, 105, N, Zeros, "agência encarregada da cobrança"),
        field(106, 106, N, Zeros, "dígito verificador da agência"),
        field(107, 108, N, Fixed("02"), "espécie do título (duplicata mercantil)"),
        field(109, 109, A, Fixed("N"), "identificação de título aceito/não aceito"),
        field(110, 117, N, Value("issued_on"), "data da emissão do título"),
        field(118, 118, N, Value("interest_code"), "código do juros de mora"),
        field(119, 126, N, Value("interest_date"), "data do juros de mora"),
        field(127, 141, N, Value("interest_per_day"), "juros de mora por dia"),
        field(142, 142, N, Zeros, "código do desconto 1"),
        field(143, 150, N, Zeros, "data do desconto 1"),
        field(151, 165, N, Zeros, "valor do desconto 1"),
        field(166, 180, N, Zeros, "valor do IOF a ser recolhido"),
        field(181, 195, N, Zeros, "valor do abatimento"),
        field(196, 220, A, Value("reference"), "identificação do título na empresa"),
        field(221, 221, N, Fixed("3"), "código para protesto (não protestar)"),
        field(222, 223, N, Zeros, "número de dias para protesto"),
        field(224, 224, N, Fixed("2"), "código para baixa/devolução (não baixar)"),
        field(225, 227, N, Zeros, "número de dias para baixa/devolução"),
        field(228, 229, N, Fixed("09"), "código da moeda (real)"),
        field(230, 239, N, Zeros, "uso exclusivo CAIXA"),
        field(240, 240, A, Blanks, "uso exclusivo FEBRABAN"),
    ],
};

/// Segment T of a return.
pub const SEGMENT_T: Record = Record {
    name: "Caixa 240 segmento T (retorno)",
    width: 240,
    fields: &[
        field(1, 7, N, Unread, "banco e lote"),
        field(8, 8, N, Fixed("3"), "tipo de registro"),
        field(9, 13, N, Unread, "número do registro no lote"),
        field(14, 14, A, Fixed("T"), "código do segmento"),
        field(15, 15, A, Unread, "uso exclusivo FEBRABAN"),
        field(16, 17, N, Value("movement"), "código de movimento retorno"),
        field(18, 41, A, Unread, "agência, código do beneficiário, uso CAIXA e modalidade"),
        field(42, 56, N, Value("our_number"), "identificação do título no banco (nosso número)"),
        field(57, 58, A, Unread, "uso exclusivo CAIXA e carteira"),
        field(59, 69, A, Value("document_number"), "número do documento de cobrança"),
        field(70, 73, A, Unread, "uso exclusivo CAIXA"),
        field(74, 81, N, Value("due_date"), "data do vencimento do título"),
        field(82, 96, N, Value("amount"), "valor nominal do título"),
        field(97, 105, A, Unread, "banco e agência cobradora/recebedora"),
        field(106, 130, A, Value("reference"), "identificação do título na empresa"),
        field(131, 198, A, Unread, "moeda, pagador e uso CAIXA"),
        field(199, 213, N, Value("fee"), "valor da tarifa/custas"),
        field(214, 223, A, Value("reasons"), "identificação para rejeições, tarifas, custas, liquidação e baixas"),
        field(224, 240, A, Unread, "uso exclusivo FEBRABAN"),
    ],
};

/// The layout.
pub const LAYOUT: Cnab240 = Cnab240 {
    file_header: &FILE_HEADER,
    batch_header: &BATCH_HEADER,
    segments: &[&SEGMENT_P, &febraban::SEGMENT_Q, &febraban::SEGMENT_R],
    batch_trailer: &febraban::BATCH_TRAILER,
    file_trailer: &febraban::FILE_TRAILER,
    segment_t: &SEGMENT_T,
    segment_u: &febraban::SEGMENT_U,
};
