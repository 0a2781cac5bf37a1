# WebMCP Sidecar: one-click install for Windows, no Python knowledge needed.
#
#   powershell -ExecutionPolicy Bypass -File install.ps1 [install options]
#   powershell -ExecutionPolicy Bypass -File install.ps1 -Uninstall
#
# Uses the bundle next to this script (a release download) or dist\ of a source checkout, and
# builds it from the checkout when there is none (needs Python 3.11+). The bundle is copied to
# %LOCALAPPDATA%\webmcp-sidecar\app and `webmcp-sidecar.exe install` runs from there: it writes
# the host manifests, the HKCU registry keys Chrome/Chromium/Edge read, and the MCP client
# entries, then prints what is left to do.
param(
    [switch]$Uninstall,
    [Parameter(ValueFromRemainingArguments = $true)][string[]]$Rest = @()
)
$ErrorActionPreference = "Stop"
$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$appRoot = Join-Path $env:LOCALAPPDATA "webmcp-sidecar"
$app = Join-Path $appRoot "app"
$exe = "webmcp-sidecar.exe"

if ($Uninstall) {
    $installed = Join-Path $app $exe
    if (Test-Path $installed) { & $installed uninstall @Rest }
    Remove-Item -Recurse -Force $app -ErrorAction SilentlyContinue
    if (Test-Path $app) {
        Write-Host "Close your browsers (they may be running the host), then delete $app"
        exit 1
    }
    Write-Host "WebMCP Sidecar removed. Remove the extension from your browser's extensions page."
    exit 0
}

$bundle = $null
foreach ($d in @($env:WEBMCP_SIDECAR_BUNDLE_DIR, (Join-Path $here "webmcp-sidecar"),
                 (Join-Path $here "..\dist\webmcp-sidecar"))) {
    if ($d -and (Test-Path (Join-Path $d $exe))) { $bundle = (Resolve-Path $d).Path; break }
}

if (-not $bundle) {
    $root = (Resolve-Path (Join-Path $here "..")).Path
    if (-not (Test-Path (Join-Path $root "pyproject.toml"))) {
        throw "No webmcp-sidecar bundle next to this script, and no source to build it."
    }
    $py = Join-Path $root ".venv\Scripts\python.exe"
    if (-not (Test-Path $py)) {
        $launcher = Get-Command py -ErrorAction SilentlyContinue
        if ($launcher) { & py -3 -m venv (Join-Path $root ".venv") }
        else { & python -m venv (Join-Path $root ".venv") }
    }
    & $py -c "import sys; sys.exit(sys.version_info < (3, 11))"
    if ($LASTEXITCODE -ne 0) { throw "Building needs Python 3.11 or newer." }
    Write-Host "Building the bundle (about a minute)..."
    & $py -m pip install -q --disable-pip-version-check -e "$root[package]"
    & $py -m PyInstaller --noconfirm --distpath (Join-Path $root "dist") `
        --workpath (Join-Path $root "build\pyinstaller") (Join-Path $root "installers\webmcp-sidecar.spec")
    if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed." }
    $bundle = Join-Path $root "dist\webmcp-sidecar"
}

if ($bundle -ne $app) {
    New-Item -ItemType Directory -Force $appRoot | Out-Null
    Remove-Item -Recurse -Force $app -ErrorAction SilentlyContinue
    if (Test-Path $app) {
        # Windows locks the files of a running program: a browser may be running the host.
        Write-Host "Close your browsers and MCP clients (they may be running webmcp-sidecar), then run this again."
        exit 1
    }
    Copy-Item -Recurse $bundle $app
}

& (Join-Path $app $exe) install @Rest
$status = $LASTEXITCODE
Write-Host ""
Write-Host "The program is in $app; check the setup any time with:"
Write-Host "  & '$(Join-Path $app $exe)' doctor"
exit $status
