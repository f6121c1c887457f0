/**
 * The subset of the controller's JSON the client reads. Both API versions use
 * these keys (v3 adds some we ignore); test/fakes/gns3/server.ts serves the
 * real servers' shapes.
 */
export interface RawProject {
  project_id: string;
  name: string;
  status: string; // 'opened' | 'closed'
  auto_close?: boolean;
  [k: string]: unknown;
}

export interface RawTemplate {
  template_id: string;
  name: string;
  template_type: string;
  category?: string;
  builtin?: boolean;
  compute_id?: string | null;
  default_name_format?: string;
  usage?: string;
  [k: string]: unknown;
}

/** One entry of `GET /computes` (v3 may list none: its local compute still takes nodes). */
export interface RawCompute {
  compute_id: string;
  name: string;
  host: string;
  port?: number;
  connected?: boolean;
  [k: string]: unknown;
}

export interface RawPort {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
  link_type?: string;
  [k: string]: unknown;
}

export interface RawNode {
  node_id: string;
  name: string;
  node_type: string;
  status: string;
  console: number | null;
  console_host: string | null;
  console_type: string | null;
  template_id?: string | null;
  compute_id?: string;
  ports?: RawPort[];
  properties?: Record<string, unknown>;
  x: number;
  y: number;
  width?: number;
  height?: number;
  [k: string]: unknown;
}

export interface RawLinkEnd {
  node_id: string;
  adapter_number: number;
  port_number: number;
  label?: { text?: string };
}

export interface RawLink {
  link_id: string;
  link_type?: string;
  nodes: RawLinkEnd[];
  filters?: Record<string, unknown[]>;
  suspend?: boolean;
  capturing?: boolean;
  [k: string]: unknown;
}

export interface FilterParameter {
  name: string;
  type: string; // 'int' | 'text' | …
  minimum?: number;
  maximum?: number;
  unit?: string;
}

export interface AvailableFilter {
  type: string;
  name: string;
  description?: string;
  parameters: FilterParameter[];
}
