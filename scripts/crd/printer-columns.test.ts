import { describe, expect, it } from 'vitest';
import type { PrinterColumn } from '../../src/apis/kind-descriptor.ts';
import type { JsonSchemaProps } from './crd-types.ts';
import { printerColumns } from './printer-columns.ts';
import { CrdSchemaError } from './schema-error.ts';

const withConditions: JsonSchemaProps = {
  type: 'object',
  properties: { status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object' } }, size: { type: 'integer' } } } },
};
const withoutConditions: JsonSchemaProps = { type: 'object', properties: { status: { type: 'object', properties: { size: { type: 'integer' } } } } };

const healthy: PrinterColumn = { name: 'Healthy', type: 'string', jsonPath: '.status.conditions[?(@.type=="Healthy")].status', description: 'Status of the Healthy condition.' };

function refusal(columns: PrinterColumn[], root: JsonSchemaProps): CrdSchemaError | undefined {
  try {
    printerColumns(columns, root);
  } catch (e) {
    if (e instanceof CrdSchemaError) return e;
    throw e;
  }
  return undefined;
}

describe('printerColumns', () => {
  it("takes a column of another condition's status or reason, placed among the kind's own columns", () => {
    const reason = { ...healthy, name: 'Health', jsonPath: '.status.conditions[?(@.type=="Healthy")].reason' };
    const size: PrinterColumn = { name: 'Size', type: 'integer', jsonPath: '.status.size', description: 'Size.' };
    expect(printerColumns([healthy, size, reason], withConditions).map((c) => [c.name, c.jsonPath])).toEqual([
      ['Ready', '.status.conditions[?(@.type=="Ready")].status'],
      ['Reason', '.status.conditions[?(@.type=="Ready")].reason'],
      ['Healthy', '.status.conditions[?(@.type=="Healthy")].status'],
      ['Size', '.status.size'],
      ['Health', '.status.conditions[?(@.type=="Healthy")].reason'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it.each<[string, PrinterColumn, JsonSchemaProps, RegExp]>([
    ['a condition column of a status without conditions', healthy, withoutConditions, /the status has none/],
    ['a condition column that is not a string', { ...healthy, type: 'boolean' }, withConditions, /does not fit a condition's status or reason/],
    ["a condition's message", { ...healthy, jsonPath: '.status.conditions[?(@.type=="Healthy")].message' }, withConditions, /plain dotted path/],
    ['another filter', { ...healthy, jsonPath: '.status.conditions[?(@.status=="True")].type' }, withConditions, /plain dotted path/],
  ])('refuses %s', (_name, column, root, message) => {
    const error = refusal([column], root);
    expect(error?.path).toBe(`printerColumns.${column.name}`);
    expect(error?.message).toMatch(message);
  });
});
