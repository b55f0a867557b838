//! Imports and exports of tournaments: OpenGotha's XML file (read and write) and the AGA
//! files (register.tde + round files, send2aga, results report).

pub mod aga;
pub mod csv;
pub mod egf;
pub mod opengotha_xml;
