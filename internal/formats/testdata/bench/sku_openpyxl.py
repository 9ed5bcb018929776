#!/usr/bin/python3
"""Writes the SKU workbooks of the XLSX benchmarks (internal/formats) with
openpyxl, from the rows of a CSV file the benchmark generated:

    /usr/bin/python3 sku_openpyxl.py SKU.csv SKU.xlsx inline|shared

openpyxl (Debian's 3.0) writes its strings inline, as many export scripts
do; "shared" then moves them into a shared string table, as Excel and
LibreOffice write them, the sheet otherwise as openpyxl wrote it.
"""
import csv
import re
import sys
import zipfile

import openpyxl

NUMBERS = range(4, 11)  # quantityPerBox .. buyPrice


def number(v):
    n = float(v)
    return int(n) if n.is_integer() else n


def main(src, out, mode):
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Sheet1")
    with open(src, newline="", encoding="utf-8") as f:
        for i, row in enumerate(csv.reader(f)):
            ws.append([None if v == "" else number(v) if i > 0 and j in NUMBERS else v
                       for j, v in enumerate(row)])
    wb.save(out)
    if mode == "shared":
        share(out)


def share(path):
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    table, index = [], {}

    def shared(m):
        s = m.group(1)
        if s not in index:
            index[s] = len(table)
            table.append(s)
        return '<c r="%s" t="s"><v>%d</v></c>' % (m.group(0).split('"')[1], index[s])

    parts[sheet] = re.sub(r'<c r="[A-Z]+[0-9]+" t="inlineStr"><is><t>([^<]*)</t></is></c>', shared,
                          parts[sheet].decode("utf-8")).encode("utf-8")
    parts["xl/sharedStrings.xml"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="%d" uniqueCount="%d">'
        % (len(table), len(table)) + "".join("<si><t>%s</t></si>" % s for s in table) + "</sst>").encode("utf-8")
    rels = "xl/_rels/workbook.xml.rels"
    parts[rels] = parts[rels].replace(b"</Relationships>", b'<Relationship Id="rIdShared" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
    types = "[Content_Types].xml"
    parts[types] = parts[types].replace(b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)


if __name__ == "__main__":
    main(*sys.argv[1:4])
