// Runs third-party validators over billet documents, so that our barcode, digitable line and Pix
// code are checked by code we did not write. Input (stdin): a JSON array of
// {barcode, digitable_line, pix_qr_code, amount, due_date}. Output: {"ok": bool, "problems": [...]};
// exit status 1 when any problem is found.
const boletoUtils = require('@mrmgomes/boleto-utils');
const brValidator = require('boleto-brasileiro-validator');
const pixUtils = require('pix-utils');

// FEBRABAN's barcode check digit is 11 - (sum mod 11), and 1 where that gives 0, 10 or 11, that is
// where the sum mod 11 is 0 or 1. boleto-utils 1.3.3 applies the rule of utility bills to those two
// cases (it expects 0), so a barcode in either is left to boleto-brasileiro-validator and our own
// worked examples.
function checkDigitIsOneByRule(barcode) {
  const digits = barcode.slice(0, 4) + barcode.slice(5);
  let sum = 0, weight = 2;
  for (const c of [...digits].reverse()) { sum += Number(c) * weight; weight = weight < 9 ? weight + 1 : 2; }
  return sum % 11 <= 1;
}

const billets = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const problems = [];
for (const billet of billets) {
  const name = billet.barcode;
  const line = billet.digitable_line.replace(/\D/g, '');
  if (!brValidator.boletoBancarioCodigoBarras(billet.barcode)) problems.push(`${name}: barcode refused by boleto-brasileiro-validator`);
  if (!brValidator.boletoBancarioLinhaDigitavel(line)) problems.push(`${name}: digitable line refused by boleto-brasileiro-validator`);
  for (const input of checkDigitIsOneByRule(billet.barcode) ? [] : [billet.barcode, billet.digitable_line]) {
    const read = boletoUtils.validarBoleto(input);
    if (!read.sucesso) { problems.push(`${name}: ${input} refused by boleto-utils: ${read.mensagem}`); continue; }
    if (read.codigoBarras !== billet.barcode) problems.push(`${name}: boleto-utils reads barcode ${read.codigoBarras}`);
    if (read.linhaDigitavel !== line) problems.push(`${name}: boleto-utils reads line ${read.linhaDigitavel}`);
    if (Number(read.valor).toFixed(2) !== Number(billet.amount).toFixed(2)) problems.push(`${name}: boleto-utils reads amount ${read.valor}`);
    const due = new Date(read.vencimentoComNovoFator2025).toISOString().slice(0, 10);
    if (due !== billet.due_date) problems.push(`${name}: boleto-utils reads due date ${due}`);
  }
  // A billet of a flow without Pix (Itaú's CNAB 240 remittances) has no code to check.
  if (billet.pix_qr_code === null) continue;
  const pix = pixUtils.parsePix(billet.pix_qr_code);
  if (pixUtils.hasError(pix)) { problems.push(`${name}: Pix refused by pix-utils: ${pix.message}`); continue; }
  if (pix.type !== 'STATIC') problems.push(`${name}: Pix type ${pix.type}`);
  if (Number(pix.transactionAmount).toFixed(2) !== Number(billet.amount).toFixed(2)) problems.push(`${name}: Pix amount ${pix.transactionAmount}`);
}
console.log(JSON.stringify({ ok: problems.length === 0, checked: billets.length, problems }));
process.exit(problems.length === 0 ? 0 : 1);
