# Installs tictac from a GitHub release on Windows, as cargo-dist's installers
# do: downloads the x86_64 archive, checks its SHA-256, puts tictac.exe in
# $env:TICTAC_INSTALL_DIR (default %LOCALAPPDATA%\Programs\tictac) and adds
# that folder to the user's PATH. The release workflow attaches it as
# tictac-installer.ps1 with its own download folder filled in:
#
#   powershell -ExecutionPolicy ByPass -File tictac-installer.ps1   # from the release page
#
# $env:TICTAC_DOWNLOAD_URL overrides that folder.
$ErrorActionPreference = 'Stop'

$downloadUrl = if ($env:TICTAC_DOWNLOAD_URL) { $env:TICTAC_DOWNLOAD_URL } else { '@DOWNLOAD_URL@' }
if ($downloadUrl.StartsWith('@')) {
    throw 'this copy has no download folder: set TICTAC_DOWNLOAD_URL, or use the release''s tictac-installer.ps1'
}
$installDir = if ($env:TICTAC_INSTALL_DIR) { $env:TICTAC_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\tictac' }
if ($env:PROCESSOR_ARCHITECTURE -ne 'AMD64') {
    throw "no release archive for Windows on $($env:PROCESSOR_ARCHITECTURE); build from source: cargo install --locked --path ."
}
$target = 'x86_64-pc-windows-msvc'
$archive = "tictac-$target.zip"

$tmp = Join-Path ([System.IO.Path]::GetTempPath()) ([System.Guid]::NewGuid().ToString())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
    Write-Host "tictac-installer: downloading $archive"
    $zip = Join-Path $tmp $archive
    Invoke-WebRequest -UseBasicParsing -Uri "$downloadUrl/$archive" -OutFile $zip
    Invoke-WebRequest -UseBasicParsing -Uri "$downloadUrl/$archive.sha256" -OutFile "$zip.sha256"
    $expected = ((Get-Content -Raw "$zip.sha256").Trim() -split '\s+')[0]
    $actual = (Get-FileHash -Algorithm SHA256 $zip).Hash
    if ($actual -ne $expected) {
        throw "$archive does not match its SHA-256 (expected $expected, got $actual)"
    }
    Expand-Archive -Path $zip -DestinationPath $tmp
    New-Item -ItemType Directory -Force -Path $installDir | Out-Null
    Copy-Item -Force (Join-Path $tmp "tictac-$target\tictac.exe") $installDir
    Write-Host "tictac-installer: installed $(Join-Path $installDir 'tictac.exe')"

    $userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
    $entries = if ($userPath) { $userPath -split ';' } else { @() }
    if ($entries -notcontains $installDir) {
        $newPath = (@($installDir) + $entries) -join ';'
        [Environment]::SetEnvironmentVariable('Path', $newPath, 'User')
        Write-Host "tictac-installer: added $installDir to your PATH; open a new terminal to use tictac"
    }
} finally {
    Remove-Item -Recurse -Force $tmp
}
