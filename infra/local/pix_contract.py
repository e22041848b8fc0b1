#!/usr/bin/env python3
"""Writes the Banco Central's API Pix contract with the corrections Prism needs to check calls.

  python3 infra/local/pix_contract.py <the contract's openapi.yaml> <corrected copy>

The contract (the BCB's openapi.yaml, v2.9.0, named by PIX_API_CONTRACT; the repository holds no
copy of it) is read as it is; this writes a corrected copy for Prism's proxy (infra/lib.sh start_pix).
Each correction fixes a defect of the file itself, never a rule of the standard:

1. CPF patterns (and Pix Automático's codMun one) are written with the regex delimiters inside the
   string ("/^\\d{11}$/"): a valid CPF fails. The delimiters are dropped.
2. PayloadLocationCob requires `tipoCob` without defining it: `tipoCob` is defined (enum cob).
3. CobVGerada requires a top-level `location` that no part defines: it is defined as PayloadLocation's
   `location` (what every PSP answers beside `loc`).
4. DadosRecebedor requires `logradouro`, `cidade`, `uf`, `cep` of the charge itself instead of
   its `recebedor`: the requirement moves onto `recebedor`.
5. PixConsultados (`GET /pix`) requires `cobs` while its property is `pix`: it requires `pix`.
6. PayloadLocation's `location` is declared `format: uri`, but a location is written without its
   scheme (the BR Code carries `pix.example.com/qr/v2/...`, the file's own example): the format goes.
7. `/cobv/{pixUrlAccessToken}` (the payer's JWS payload) has the same path template as
   `/cobv/{txid}`: Prism routes `GET /cobv/<txid>` (which the service calls before a revision) to
   it. The service never calls the payload route: it is dropped.

Pix Automático (recurrences, their locations, recurring charges and their webhooks):

8. RecBase, the part every recurrence schema shares, requires `retentativa`, which nothing defines,
   and `idRec`, which a `POST /rec` body cannot carry (the PSP makes it): it requires `calendario` and
   `vinculo`; RecGerada, RecCompleta and RecCompletaPesquisada (answers) still require `idRec`.
9. DadosPagadorRec requires `ispbParticipante` of the recurrence itself instead of its `pagador`:
   the requirement moves onto `pagador`.
10. PayloadLocationRecGerada requires `tipo` without defining it: `tipo` is defined (enum rec).
11. The `encerramento` of RecEncerramento and of CobRAtualizacao is a oneOf of `rejeicao` and
   `cancelamento` branches that require nothing, so any value matches both and fails: each branch
   requires its own key.
12. RecRevisada's `vinculo.devedor` is a oneOf of two identical branches (any value matches both
   and fails): it is that one object (`nome` still required).
13. PayloadLocationRecGerada's `location` is declared `format: uri`, but it is written without its
   scheme, as fix 6 says of PayloadLocation: the format goes.
14. PixAutomatico's `valor` is a string that must also match an anyOf of objects (the components of
   a Pix's value pasted into it), so no value passes: it is the amount string it describes.
15. RecNotification requires `atualizacao"` (a stray quote in the YAML): it requires `atualizacao`.
16. SolicRecBase requires `pagador` and SolicRecCompleta requires `rec`, neither defined (the payer
   is `destinatario`, the recurrence `recPayload`): the undefined requirements go.
"""

import sys

import yaml


def walk(node, visit):
    visit(node)
    if isinstance(node, dict):
        for value in node.values():
            walk(value, visit)
    elif isinstance(node, list):
        for value in node:
            walk(value, visit)


def main(source, target):
    with open(source, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    fixed = {"patterns": 0}

    def unwrap_patterns(node):
        if isinstance(node, dict) and isinstance(node.get("pattern"), str):
            pattern = node["pattern"]
            if len(pattern) > 2 and pattern.startswith("/") and pattern.endswith("/"):
                node["pattern"] = pattern[1:-1]
                fixed["patterns"] += 1

    walk(doc, unwrap_patterns)
    schemas = doc["components"]["schemas"]

    location_cob = schemas["PayloadLocationCob"]
    location_cob.setdefault("properties", {})["tipoCob"] = {"type": "string", "enum": ["cob"]}

    gerada = schemas["CobVGerada"]
    gerada["allOf"].append({"type": "object", "properties": {"location": {"type": "string", "maxLength": 77}}})

    recebedor = schemas["DadosRecebedor"]
    moved = recebedor.pop("required", [])
    recebedor["properties"]["recebedor"].setdefault("required", []).extend(moved)

    consultados = schemas["PixConsultados"]
    consultados["required"] = ["parametros", "pix"]

    schemas["PayloadLocation"]["properties"]["location"].pop("format", None)

    doc["paths"].pop("/cobv/{pixUrlAccessToken}", None)

    schemas["RecBase"]["required"] = ["calendario", "vinculo"]
    for name in ("RecGerada", "RecCompleta", "RecCompletaPesquisada"):
        required = schemas[name].setdefault("required", [])
        if "idRec" not in required:
            required.insert(0, "idRec")

    pagador_rec = schemas["DadosPagadorRec"]
    moved = pagador_rec.pop("required", [])
    pagador_rec["properties"]["pagador"].setdefault("required", []).extend(moved)

    location_rec = schemas["PayloadLocationRecGerada"]["properties"]
    location_rec["tipo"] = {"type": "string", "enum": ["rec"]}
    location_rec["location"].pop("format", None)

    for name in ("RecEncerramento", "CobRAtualizacao"):
        for branch in schemas[name]["properties"]["encerramento"]["oneOf"]:
            branch["required"] = list(branch["properties"])

    revisada = next(p for p in schemas["RecRevisada"]["allOf"] if "vinculo" in p.get("properties", {}))
    vinculo = revisada["properties"]["vinculo"]["properties"]
    vinculo["devedor"] = {"description": vinculo["devedor"].get("description", ""), **vinculo["devedor"]["oneOf"][0]}

    schemas["PixAutomatico"]["properties"]["valor"].pop("anyOf", None)

    notification = schemas["RecNotification"]
    notification["required"] = [name.strip('"') for name in notification["required"]]

    for name, undefined in (("SolicRecBase", "pagador"), ("SolicRecCompleta", "rec")):
        schemas[name]["required"] = [r for r in schemas[name]["required"] if r != undefined]

    with open(target, "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, allow_unicode=True, sort_keys=False)
    print(f"corrected API Pix contract: {target} ({fixed['patterns']} CPF and codMun patterns unwrapped, "
          "6 schema and path fixes, 9 Pix Automático fixes)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
