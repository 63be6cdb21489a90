# Evaluates flake.nix's outputs against the stand-in nixpkgs (ci/nix/standin-nixpkgs.nix) and returns, for
# each output group, the names and instantiated drvPaths. Used by ci/check-packaging:
#   nix-instantiate --eval --strict --json ci/nix/eval-flake.nix
let
  root = ../..;
  flake = import (root + "/flake.nix");
  lock = builtins.fromJSON (builtins.readFile (root + "/flake.lock"));
  standin = {
    outPath = ./standin-nixpkgs.nix;
    lib = { };
  };
  outputs = flake.outputs {
    self = outputs // { outPath = root; };
    nixpkgs = standin // { __functor = _: import ./standin-nixpkgs.nix; };
  };
  paths = group: builtins.mapAttrs (_: d: d.drvPath) group;
in
{
  inputs = builtins.attrNames flake.inputs;
  locked = builtins.attrNames lock.nodes.${lock.root}.inputs;
  packages = paths outputs.packages.x86_64-linux;
  devShells = paths outputs.devShells.x86_64-linux;
  checks = paths outputs.checks.x86_64-linux;
}
