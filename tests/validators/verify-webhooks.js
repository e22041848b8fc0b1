// Verifies webhook deliveries with the published Standard Webhooks implementation
// (`standardwebhooks` on npm), so that our signatures are checked by code we did not write.
// Input (stdin): a JSON array of {secret, headers: {name: value}, body} (the raw body as received).
// Each delivery is verified as a receiver would: with the headers as they came (webhook-id,
// webhook-timestamp, webhook-signature) and, separately, with this API's names mapped onto them.
// Output: {"ok": bool, "checked": n, "problems": [...]}; exit status 1 when any problem is found.
const { Webhook } = require('standardwebhooks');

const deliveries = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const problems = [];
for (const [index, delivery] of deliveries.entries()) {
  const headers = {};
  for (const [name, value] of Object.entries(delivery.headers)) headers[name.toLowerCase()] = value;
  const name = `delivery ${index} (${headers['webhook-id']})`;
  const webhook = new Webhook(delivery.secret);
  try {
    const payload = webhook.verify(delivery.body, headers);
    if (payload.id === undefined || payload.type === undefined) problems.push(`${name}: the body has no id or type`);
  } catch (error) {
    problems.push(`${name}: standard headers refused: ${error.message}`);
  }
  try {
    webhook.verify(delivery.body, {
      'webhook-id': headers['x-service-delivery'],
      'webhook-timestamp': headers['x-service-timestamp'],
      'webhook-signature': headers['x-service-signature'],
    });
  } catch (error) {
    problems.push(`${name}: X-Service-* headers refused: ${error.message}`);
  }
}
console.log(JSON.stringify({ ok: problems.length === 0, checked: deliveries.length, problems }));
process.exit(problems.length === 0 ? 0 : 1);
