import React, { useEffect, useState } from "react";

type Props = { domainId: string };

export function AssetList({ domainId }: Props) {
  const [assets, setAssets] = useState<string[]>([]);
  useEffect(() => {
    fetch(`/api/assets?domain=${domainId}`).then((r) => r.json()).then(setAssets);
  }, [domainId]);
  return <ul>{assets.map((a) => <li key={a}>{a}</li>)}</ul>;
}

const Empty = () => <p>No assets</p>;

export default AssetList;
