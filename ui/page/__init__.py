"""What every page draws around its own content: layout and formulas, tables, exports, figures,
expanders drawn lazily."""
