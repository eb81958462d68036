import type { PrinterColumn } from '../../src/apis/kind-descriptor.ts';
import type { CustomResourceColumnDefinition, JsonSchemaProps } from './crd-types.ts';
import { CrdSchemaError } from './schema-error.ts';

const READY: CustomResourceColumnDefinition = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: 'Status of the Ready condition.',
};

const REASON: CustomResourceColumnDefinition = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  description: 'Reason of the Ready condition.',
};

const AGE: CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since creation.',
};

/**
 * The `additionalPrinterColumns` of a kind: Ready and Reason (when its status has conditions), the
 * kind's own columns, then Age.
 *
 * @param root the kind's translated `openAPIV3Schema`; each kind column must name a scalar field of it.
 * @throws {CrdSchemaError} for a column whose path or type does not match the schema.
 */
export function printerColumns(columns: readonly PrinterColumn[], root: JsonSchemaProps): CustomResourceColumnDefinition[] {
  const hasConditions = root.properties?.['status']?.properties?.['conditions'] !== undefined;
  const own = columns.map((c) => {
    checkColumn(c, root);
    const column: CustomResourceColumnDefinition = { name: c.name, type: c.type, jsonPath: c.jsonPath, description: c.description };
    if (c.priority === 1) column.priority = 1;
    return column;
  });
  const all = [...(hasConditions ? [READY, REASON] : []), ...own, AGE];
  const names = new Set<string>();
  for (const c of all) {
    const key = c.name.toLowerCase();
    if (key === 'name' || names.has(key)) throw new CrdSchemaError(`printerColumns.${c.name}`, 'column name is taken');
    names.add(key);
  }
  return all;
}

/** The one filter path a column may have: one condition's status or reason, as the Ready and Reason columns read them. */
const CONDITION_PATH = /^\.status\.conditions\[\?\(@\.type=="[A-Z][A-Za-z0-9]*"\)\]\.(status|reason)$/;

function checkColumn(column: PrinterColumn, root: JsonSchemaProps): void {
  const where = `printerColumns.${column.name}`;
  if (CONDITION_PATH.test(column.jsonPath)) {
    if (root.properties?.['status']?.properties?.['conditions'] === undefined) throw new CrdSchemaError(where, `jsonPath ${column.jsonPath} reads conditions, and the status has none`);
    if (column.type !== 'string') throw new CrdSchemaError(where, `column type ${column.type} does not fit a condition's status or reason (string)`);
    return;
  }
  if (!/^(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(column.jsonPath)) {
    throw new CrdSchemaError(where, `jsonPath ${column.jsonPath} must be a plain dotted path such as .status.url, or a condition's .status.conditions[?(@.type=="X")].status`);
  }
  let field: JsonSchemaProps | undefined = root;
  for (const segment of column.jsonPath.slice(1).split('.')) {
    field = field?.properties?.[segment];
  }
  if (field === undefined) throw new CrdSchemaError(where, `jsonPath ${column.jsonPath} names no field of the schema`);
  const expected = column.type === 'date' ? 'string' : column.type;
  const matches = field.type === expected || (column.type === 'number' && field.type === 'integer');
  if (!matches || (column.type === 'date' && field.format !== 'date-time')) {
    const actual = `${field.type ?? 'untyped'}${field.format === undefined ? '' : ` (${field.format})`}`;
    throw new CrdSchemaError(where, `column type ${column.type} does not fit field ${column.jsonPath} of type ${actual}`);
  }
}
