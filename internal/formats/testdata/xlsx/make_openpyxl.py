#!/usr/bin/python3
"""Writes the openpyxl-made workbooks of TestXLSXCases (internal/formats).

openpyxl writes workbooks the way many ERP exports and import scripts do:
formulas without a saved value, inline strings, merged ranges, hidden
sheets. Run it from this folder (Debian: apt-get install python3-openpyxl)
and commit the .xlsx files, so that the tests do not need Python:

    /usr/bin/python3 make_openpyxl.py
"""
import datetime

import openpyxl

SKU_HEAD = ["sku", "name", "ean", "quantityPerBox", "length", "width", "height",
            "grossWeight", "grossWeightBox", "buyPrice", "supplierCode"]
SKU_ROW = ["CHAIR-OAK-01", "Oak chair", "4006381333931", 1, 45, 50, 90, 6.5, 7.2, 89.9, "SUP-001"]
REC_HEAD = ["orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"]
FIXED = datetime.datetime(2026, 1, 1)


def book():
    wb = openpyxl.Workbook()
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    return wb, wb.active


def rows(ws, *rs):
    for r in rs:
        ws.append(r)


def zeros():
    """Codes typed as numbers: zero-padding formats and a plain number."""
    wb, ws = book()
    ws.title = "SKUs"
    rows(ws, SKU_HEAD)
    r = list(SKU_ROW)
    r[0], r[2], r[10] = 456, 12345678905, 42
    rows(ws, r)
    ws["A2"].number_format = "00000"
    ws["C2"].number_format = "0000000000000"
    ws["K2"].number_format = '"00"#'
    r = list(SKU_ROW)
    r[0] = 789
    rows(ws, r)
    wb.save("opx_zeros.xlsx")


def formula():
    """A formula openpyxl cannot calculate: no saved value."""
    wb, ws = book()
    rows(ws, SKU_HEAD, SKU_ROW)
    ws["D2"] = "=1+1"
    wb.save("opx_formula.xlsx")


def merged():
    """An order number merged over its three lines."""
    wb, ws = book()
    due = datetime.datetime(2026, 12, 1, 8, 30)
    rows(ws, REC_HEAD,
         ["R-100", 3, "SUP-001", due, "SKU-1", 5],
         [None, 3, "SUP-001", due, "SKU-2", 6],
         [None, 3, "SUP-001", due, "SKU-3", 7])
    ws.merge_cells("A2:A4")
    wb.save("opx_merged.xlsx")


def merged_header():
    """A header merged over two columns: eanBox would be lost."""
    wb, ws = book()
    head = SKU_HEAD[:3] + [None] + SKU_HEAD[3:]
    row = SKU_ROW[:3] + ["14006381333938"] + SKU_ROW[3:]
    row[4] = 6
    rows(ws, head, row)
    ws.merge_cells("C1:D1")
    wb.save("opx_merged_header.xlsx")


def errors():
    """Error values where a formula failed, saved as such."""
    wb, ws = book()
    rows(ws, SKU_HEAD, SKU_ROW)
    ws["B2"] = "#N/A"
    ws["H2"] = "#DIV/0!"
    wb.save("opx_errors.xlsx")


def sheets():
    """A hidden sheet of old data before the sheet the clerk filled."""
    wb, old = book()
    old.title = "Old"
    r = list(SKU_ROW)
    r[0] = "OLD-SKU"
    rows(old, SKU_HEAD, r)
    old.sheet_state = "hidden"
    new = wb.create_sheet("SKUs")
    rows(new, SKU_HEAD, SKU_ROW)
    wb.active = 1
    wb.save("opx_sheets.xlsx")


for make in (zeros, formula, merged, merged_header, errors, sheets):
    make()
