//! `envelope::contract`: strict JSON Schema validation of model outputs.
