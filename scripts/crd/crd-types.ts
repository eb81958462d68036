// The parts of apiextensions.k8s.io/v1 the emitter produces. Hand-written rather than taken from the
// Kubernetes client so the emitter stays a pure function with no SDK import.

/** One `x-kubernetes-validations` rule (CEL). */
export interface ValidationRule {
  rule: string;
  message?: string;
}

/** The structural subset of `JSONSchemaProps` that the emitter writes. */
export interface JsonSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  title?: string;
  format?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  items?: JsonSchemaProps;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchemaProps>;
  required?: string[];
  additionalProperties?: JsonSchemaProps;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JsonSchemaProps };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns: CustomResourceColumnDefinition[];
}

/** An `apiextensions.k8s.io/v1` CustomResourceDefinition. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: CustomResourceDefinitionVersion[];
  };
}
